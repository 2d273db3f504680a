"""Parity with the command line, the estimators inside scikit-learn's tools,
pickling, the pipe's text and the binary's lifetime."""

import gc
import gzip
import io
import os
import pickle
import shutil
import stat
import subprocess
import time

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file, load_svmlight_files
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

import sparseson
from sparseson import SparsesonClassifier, SparsesonError, SparsesonRegressor, _binary, _format
from sparseson import estimator as est_mod

TESTDATA = os.path.join(os.path.dirname(__file__), "..", "..", "testdata")


def binary():
    return sparseson.find_binary()


def cli(args, stdin=None):
    """The binary's stdout for args (stdin bytes, if given, on its stdin)."""
    return subprocess.run([binary(), "--quiet", *args], input=stdin, check=True,
                          capture_output=True).stdout


@pytest.fixture(scope="module")
def splice():
    files = [os.path.join(TESTDATA, "splice.%s.svm.gz" % p) for p in ("train", "test")]
    X, y, Xt, yt = load_svmlight_files(files)
    return files, X, y, Xt, yt


def vw_lines(part, n=None):
    with gzip.open(os.path.join(TESTDATA, "news20mc.%s.vw.gz" % part), "rb") as f:
        lines = f.read().splitlines()
    return lines[:n]


@pytest.mark.parametrize("flags,params", [
    ([], {}),
    (["--oja"], {"learner": "oja"}),
    (["--oja", "-m", "3"], {"learner": "oja", "sketch_size": 3}),
    (["--fd", "-l", "0.3"], {"learner": "fd", "learning_rate": 0.3}),
])
def test_classifier_matches_cli(tmp_path, splice, flags, params):
    (train, test), X, y, Xt, _ = splice
    model = str(tmp_path / "cli.model")
    cli(["--loss_function", "logistic", *flags, "-f", model, train])
    want = np.fromstring(cli(["-t", "-i", model, "--binary", "-p", "-", test]), sep=" ")
    clf = SparsesonClassifier(**params).fit(X, y)
    assert list(clf.classes_) == [-1, 1]
    np.testing.assert_array_equal(clf.predict(Xt), want)
    with open(model, "rb") as f:
        assert clf.model_ == f.read()  # the same examples reached the learner


def test_regressor_matches_cli(tmp_path, splice):
    (train, test), X, y, Xt, _ = splice
    model = str(tmp_path / "cli.model")
    cli(["--oja", "-f", model, train])
    want = np.fromstring(cli(["-t", "-i", model, "-p", "-", test]), sep=" ")
    reg = SparsesonRegressor(learner="oja").fit(X, y)
    np.testing.assert_array_equal(reg.predict(Xt), want)


def test_multiclass_lines_match_cli(tmp_path):
    train, test = vw_lines("train", 400), vw_lines("test", 200)
    clf = SparsesonClassifier().fit(train)
    assert list(clf.classes_) == sorted(set(int(ln.split()[0]) for ln in train))
    pred = clf.predict(test)
    k = len(clf.classes_)
    # The CLI on the same lines with the labels the estimator gives them
    # (1..K in the order of classes_), from a model file of its own.
    model = str(tmp_path / "m")
    relabel = {c: i + 1 for i, c in enumerate(clf.classes_)}
    lines = [b"%d %s" % (relabel[int(ln.split(None, 1)[0])], ln.split(None, 1)[1]) for ln in train]
    cli(["--oaa", str(k), "--loss_function", "logistic", "-f", model, "-"], stdin=b"\n".join(lines) + b"\n")
    got = np.fromstring(cli(["-t", "-i", model, "-p", "-", "-"], stdin=b"\n".join(test) + b"\n"), sep=" ")
    with open(model, "rb") as f:
        assert clf.model_ == f.read()
    np.testing.assert_array_equal(pred, clf.classes_[got.astype(int) - 1])
    proba = clf.predict_proba(test)
    assert proba.shape == (len(test), k)
    np.testing.assert_allclose(proba.sum(axis=1), 1, atol=1e-4)
    assert clf.decision_function(test).shape == (len(test), k)


@pytest.mark.parametrize("multiclass", ["oaa", "softmax"])
def test_multiclass_string_labels(multiclass):
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(3, 5)) * 4
    y = rng.integers(0, 3, 300)
    X = centers[y] + rng.normal(size=(300, 5))
    names = np.array(["ant", "bee", "cat"])
    clf = SparsesonClassifier(multiclass=multiclass, passes=3).fit(X[:200], names[y[:200]])
    assert list(clf.classes_) == list(names)
    assert clf.score(X[200:], names[y[200:]]) > 0.9
    proba = clf.predict_proba(X[200:])
    np.testing.assert_array_equal(names[proba.argmax(axis=1)], clf.predict(X[200:]))


def test_hinge_has_no_predict_proba(splice):
    _, X, y, _, _ = splice
    clf = SparsesonClassifier(loss_function="hinge").fit(X, y)
    assert not hasattr(clf, "predict_proba")
    assert hasattr(SparsesonClassifier(), "predict_proba")


def documents(lines):
    """News posts back from the VW lines (word:count tokens), as text."""
    docs, labels = [], []
    for ln in lines:
        label, feats = ln.decode().split("|f", 1)
        words = []
        for tok in feats.split():
            w, _, c = tok.partition(":")
            words += [w] * int(c or 1)
        docs.append(" ".join(words))
        labels.append("group%s" % label.strip())
    return docs, labels


def test_pipeline_with_hashing_vectorizer():
    docs, labels = documents(vw_lines("train"))
    tdocs, tlabels = documents(vw_lines("test"))
    pipe = make_pipeline(HashingVectorizer(n_features=1 << 18, alternate_sign=False, norm=None),
                         SparsesonClassifier(multiclass="softmax"))
    pipe.fit(docs, labels)
    # 20 groups: chance is 5%; one pass over 800 posts reaches 37%.
    assert pipe.score(tdocs, tlabels) > 0.25


def test_grid_search_over_sketch_size(splice):
    _, X, y, Xt, yt = splice
    grid = GridSearchCV(SparsesonClassifier(learner="oja"), {"sketch_size": [1, 4, 10]}, cv=3)
    grid.fit(X, y)
    assert len(grid.cv_results_["params"]) == 3
    assert grid.best_params_["sketch_size"] in (1, 4, 10)
    assert grid.best_estimator_.sketch_size == grid.best_params_["sketch_size"]
    assert min(grid.cv_results_["mean_test_score"]) > 0.8
    assert grid.score(Xt, yt) > 0.85


def test_pickle_round_trip(splice):
    _, X, y, Xt, _ = splice
    clf = SparsesonClassifier(learner="oja").fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    assert back.model_ == clf.model_
    np.testing.assert_array_equal(back.predict(Xt), clf.predict(Xt))
    np.testing.assert_array_equal(back.decision_function(Xt), clf.decision_function(Xt))
    # Pickled while a partial_fit's binary still runs: it is finished first.
    part = SparsesonClassifier().partial_fit(X[:1000], y[:1000], classes=[-1, 1])
    assert "_session" in part.__dict__
    back = pickle.loads(pickle.dumps(part))
    assert "_session" not in back.__dict__
    np.testing.assert_array_equal(back.predict(Xt), part.predict(Xt))


@pytest.mark.parametrize("learner", ["adagrad", "oja"])
def test_partial_fit_resumes_exactly(splice, learner):
    _, X, y, Xt, _ = splice
    whole = SparsesonClassifier(learner=learner).fit(X, y)
    parts = SparsesonClassifier(learner=learner)
    for i in range(0, X.shape[0], 700):
        parts.partial_fit(X[i:i + 700], y[i:i + 700], classes=np.array([-1.0, 1.0]))
    assert parts.model_ == whole.model_
    # A predict between batches finishes the run; the next batch resumes
    # from the model file.
    mixed = SparsesonClassifier(learner=learner)
    for i in range(0, X.shape[0], 700):
        mixed.partial_fit(X[i:i + 700], y[i:i + 700], classes=[-1, 1])
        mixed.predict(Xt[:5])
    assert mixed.model_ == whole.model_


def test_lines_and_matrix_train_the_same_model(splice):
    (train, _), X, y, _, _ = splice
    with gzip.open(train, "rt") as f:
        lines = f.read().splitlines()
    assert SparsesonClassifier().fit(lines).model_ == SparsesonClassifier().fit(X, y).model_
    assert SparsesonRegressor().fit(iter(lines)).model_ == SparsesonRegressor().fit(X, y).model_
    with pytest.raises(ValueError, match="y=None"):
        SparsesonClassifier().fit(lines, y)
    with pytest.raises(ValueError, match="line 2 of X has no label"):
        SparsesonClassifier().fit(["1 |f a", "|f b", "-1 |f c"])
    with pytest.raises(TypeError, match="single string"):
        SparsesonClassifier().fit("1 |f a")


def test_more_passes_match_cli(tmp_path, splice):
    (train, test), X, y, Xt, _ = splice
    model = str(tmp_path / "cli.model")
    cli(["--loss_function", "logistic", "--passes", "3", "--cache_file", str(tmp_path / "c"), "-f", model, train])
    clf = SparsesonClassifier(passes=3).fit(X, y)
    with open(model, "rb") as f:
        assert clf.model_ == f.read()
    assert clf.model_ != SparsesonClassifier().fit(X, y).model_


VALUES = [
    ("integers", np.array([1.0, -2.0, 1e15, 9007199254740992.0, -7.0])),
    ("short decimals", np.array([0.1, -0.25, 1e-5, 3.14159, 123456.789, 2.5e-7])),
    ("17 digits", np.random.default_rng(1).standard_normal(2000)),
    ("extremes", np.array([5e-324, 1e-300, 1.7976931348623157e308, -1e22, 1e23, 2.0 ** -60])),
]


@pytest.mark.parametrize("name,values", VALUES)
def test_libsvm_text_round_trips_float64(name, values):
    rows = np.arange(values.shape[0]) % 7
    X = sp.csr_matrix((values, (rows, np.arange(values.shape[0]))), shape=(8, values.shape[0]))
    labels = np.linspace(-3, 3, 8)
    text = _format.libsvm_lines(X.indptr, X.indices, X.data, labels)
    lines = text.decode().splitlines()
    assert len(lines) == 8 and lines[7] == "3"  # row 7 has no features
    back = sp.lil_matrix(X.shape)
    for i, ln in enumerate(lines):
        toks = ln.split()
        assert float(toks[0]) == labels[i]
        for t in toks[1:]:
            j, v = t.split(":")
            back[i, int(j) - 1] = float(v)
    assert (back.tocsr() != X).nnz == 0


@pytest.mark.parametrize("values", [
    [0], [7], [0, 10, 9999, 10000, 10001, 100000000, 100000001, 123400005678],
    [2 ** 53, 10 ** 16, 99990000, 1, 0],
])
def test_integer_digits(values):
    a = np.array(values, np.int64)
    words = _format._uint_words(a)
    got = [w.tobytes().replace(b"\0", b"").decode() for w in words]
    assert got == [str(v) for v in values]


@pytest.mark.parametrize("seed", range(20))
def test_libsvm_text_reads_back_in_sklearn(seed):
    """Random matrices of every kind of value (empty rows, explicit zeros,
    integers, short decimals, 17-digit doubles, tiny and huge magnitudes):
    load_svmlight_file (strtod, exact) reads back the same float64s."""
    rng = np.random.default_rng(seed)
    n, d = rng.integers(1, 60), rng.integers(1, 3000)
    X = sp.random(n, d, density=rng.uniform(0, 0.05), random_state=seed, format="csr")
    kinds = [rng.integers(-99, 100, X.nnz).astype(float), np.round(rng.normal(size=X.nnz), 3),
             rng.normal(size=X.nnz) * 10.0 ** rng.integers(-30, 30, X.nnz), np.zeros(X.nnz)]
    X.data = np.choose(rng.integers(0, 4, X.nnz), kinds) if X.nnz else X.data
    y = rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, n)
    text = _format.libsvm_lines(X.indptr, X.indices, X.data, y)
    Xb, yb = load_svmlight_file(io.BytesIO(text), n_features=d, zero_based=False)
    X.eliminate_zeros()
    np.testing.assert_array_equal(yb, y)
    assert (Xb != X).nnz == 0 and Xb.shape == X.shape


def test_pipe_text_trains_like_repr_text(tmp_path):
    """The estimator's text and Python's repr of every value (the shortest
    text that round-trips) give the binary the same examples: the models
    are byte-identical. (dump_svmlight_file's %.16g would not: it rounds
    some doubles.)"""
    rng = np.random.default_rng(2)
    X = sp.random(300, 40, density=0.2, random_state=3, format="csr")
    X.data = rng.standard_normal(X.data.shape[0]) * 10.0 ** rng.integers(-6, 6, X.data.shape[0])
    X[5, 3] = 0.0  # an explicit zero, dropped by both
    y = rng.choice([-1, 1], 300)
    Xc = X.copy()
    Xc.eliminate_zeros()
    text = "".join("%d %s\n" % (y[i], " ".join("%d:%r" % (j + 1, v) for j, v in zip(r.indices, r.data)))
                   for i, r in enumerate(Xc))
    model = str(tmp_path / "m")
    cli(["--loss_function", "logistic", "-f", model, "--format", "libsvm", "-"], stdin=text.encode())
    with open(model, "rb") as f:
        assert SparsesonClassifier().fit(X, y).model_ == f.read()


def test_missing_binary(monkeypatch, tmp_path):
    monkeypatch.delenv("SPARSESON_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SparsesonError, match="SPARSESON_BIN"):
        sparseson.find_binary()
    with pytest.raises(SparsesonError, match="not an executable"):
        sparseson.find_binary(str(tmp_path / "nothing"))


def test_incompatible_binary(tmp_path, splice):
    fake = tmp_path / "sparseson"
    fake.write_text("#!/bin/sh\necho 'sparseson 0.0.1'\necho '  --quiet --oaa'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(SparsesonError, match="incompatible.*--raw_predictions"):
        SparsesonClassifier(sparseson_bin=str(fake)).fit(splice[1], splice[2])
    other = tmp_path / "other"
    other.write_text("#!/bin/sh\necho 'vw 9.0'\n")
    other.chmod(fake.stat().st_mode)
    with pytest.raises(SparsesonError, match="not sparseson"):
        sparseson.find_binary(str(other))


def test_binary_error_carries_its_message(splice):
    _, X, y, _, _ = splice
    with pytest.raises(SparsesonError, match="bogus"):
        SparsesonClassifier(extra_args=("--bogus",)).fit(X, y)
    with pytest.raises(ValueError, match="learner='nope'"):
        SparsesonClassifier(learner="nope").fit(X, y)
    with pytest.raises(ValueError, match="sketch_size"):
        SparsesonClassifier(sketch_size=4).fit(X, y)


class Recorder:
    """subprocess.Popen that remembers the processes it started."""

    started = []

    def __new__(cls, *a, **kw):
        p = Recorder.real(*a, **kw)
        Recorder.started.append(p)
        return p


def gone(proc, timeout=10):
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return proc.poll() is not None


def test_no_process_outlives_an_error(monkeypatch, splice):
    _, X, y, _, _ = splice
    Recorder.real, Recorder.started = subprocess.Popen, []
    monkeypatch.setattr(_binary.subprocess, "Popen", Recorder)
    real_chunks = est_mod._csr_chunks

    def failing(*a):
        yield next(real_chunks(*a))
        raise KeyboardInterrupt

    clf = SparsesonClassifier().fit(X[:500], y[:500])
    before = clf.model_
    monkeypatch.setattr(est_mod, "_csr_chunks", failing)
    with pytest.raises(KeyboardInterrupt):
        clf.partial_fit(X[500:], y[500:])
    assert clf.model_ == before  # back to the model the failed run started from
    assert Recorder.started and all(gone(p) for p in Recorder.started)


def test_no_process_outlives_its_estimator(monkeypatch, splice):
    _, X, y, _, _ = splice
    Recorder.real, Recorder.started = subprocess.Popen, []
    monkeypatch.setattr(_binary.subprocess, "Popen", Recorder)
    clf = SparsesonRegressor().partial_fit(X[:100], y[:100])
    proc = [p for p in Recorder.started if "-f" in p.args][-1]
    assert proc.poll() is None  # still waiting for the next batch
    del clf
    gc.collect()
    assert gone(proc)


def test_found_through_the_environment(monkeypatch, tmp_path):
    real = binary()
    link = tmp_path / "renamed"
    os.symlink(real, link)
    monkeypatch.setenv("SPARSESON_BIN", str(link))
    assert sparseson.find_binary() == str(link)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SPARSESON_BIN")
    os.symlink(real, tmp_path / "sparseson")
    assert sparseson.find_binary() == shutil.which("sparseson")
