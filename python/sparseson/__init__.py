"""scikit-learn estimators over the sparseson command-line learner.

SparsesonClassifier and SparsesonRegressor train and predict by running
the sparseson binary (found through the sparseson_bin parameter, then
$SPARSESON_BIN, then PATH) with the examples on a pipe as LIBSVM text.
"""

from ._binary import SparsesonError, find_binary
from .estimator import LEARNERS, SparsesonClassifier, SparsesonRegressor

__all__ = ["SparsesonClassifier", "SparsesonRegressor", "SparsesonError", "find_binary", "LEARNERS"]
__version__ = "0.1.0"
