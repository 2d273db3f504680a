"""scikit-learn's own estimator checks on both estimators, with the default
learner (AdaGrad) and with Oja-SON."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from sparseson import SparsesonClassifier, SparsesonRegressor

ESTIMATORS = [
    SparsesonClassifier(),
    SparsesonClassifier(learner="oja"),
    SparsesonRegressor(),
    SparsesonRegressor(learner="oja"),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
