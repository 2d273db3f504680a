"""scikit-learn estimators that train and predict with the sparseson binary.

Each fit and predict runs the binary once, with the examples on its stdin
as LIBSVM text (or the caller's own VW/LIBSVM lines) and the model in a
temporary directory; consecutive partial_fit calls share one run. The
model file's bytes are kept on the estimator (model_), so pickling carries
the model, and no process outlives its estimator.
"""

import os
import tempfile

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from . import _binary
from ._format import libsvm_lines

# learner parameter → the flag that selects it (AdaGrad needs none).
LEARNERS = {
    "adagrad": (), "sgd": ("--sgd",), "oja": ("--oja",), "fd": ("--fd",),
    "fd_fast": ("--fd_fast",), "rfd": ("--rfd",), "rfd_fast": ("--rfd_fast",), "rp": ("--rp",),
    "ada_fd": ("--ada_fd",), "ada_ffd": ("--ada_ffd",), "ftsl": ("--ftsl",),
    "ftfsl": ("--ftfsl",), "sada": ("--sada",), "sada_fast": ("--sada_fast",),
}
_FIRST_ORDER = ("adagrad", "sgd")

# Nonzeros per chunk written to the pipe: large enough that NumPy's
# per-call overhead vanishes, small enough that the binary starts parsing
# early and the text of a chunk stays a few MB.
CHUNK_NNZ = 1 << 18


class _Session:
    """One training run of the binary: its temporary directory (the model
    it loads and writes, and the cache of more passes) and its process."""

    def __init__(self, binary, args, fmt, init):
        self.fmt, self.init = fmt, init
        self._tmp = tempfile.TemporaryDirectory(prefix="sparseson-")
        self._model = os.path.join(self._tmp.name, "model")
        args = [os.path.join(self._tmp.name, a) if a == "cache" else a for a in args]
        args += ["-f", self._model]
        if init is not None:
            path = os.path.join(self._tmp.name, "init")
            with open(path, "wb") as f:
                f.write(init)
            args += ["-i", path]
        try:
            self._proc = _binary.Process(binary, args + ["--format", fmt, "-"])
        except BaseException:
            self._tmp.cleanup()
            raise

    def alive(self):
        return self._proc.alive()

    def write(self, chunks):
        try:
            self._proc.write(chunks)
        except BaseException:
            self._tmp.cleanup()
            raise

    def kill(self):
        self._proc.kill()
        self._tmp.cleanup()

    def finish(self):
        """The model file's bytes once the binary has read all."""
        try:
            self._proc.finish()
            with open(self._model, "rb") as f:
                return f.read()
        finally:
            self._tmp.cleanup()


def _is_lines(X):
    """Whether X is an iterable of text lines rather than array-like data."""
    if isinstance(X, (str, bytes)):
        raise TypeError("X is a single string; pass a list (or any iterable) of lines")
    if sp.issparse(X) or isinstance(X, np.ndarray) or hasattr(X, "__array__"):
        return False
    if isinstance(X, (list, tuple)):
        return len(X) > 0 and isinstance(X[0], (str, bytes))
    return hasattr(X, "__iter__") and not hasattr(X, "shape")


def _as_bytes_lines(X):
    out = []
    for line in X:
        if isinstance(line, str):
            line = line.encode()
        elif not isinstance(line, bytes):
            raise TypeError("X is an iterable of %s; expected text lines (str or bytes) or an array"
                            % type(line).__name__)
        out.append(line.rstrip(b"\r\n"))
    return out


def _csr_chunks(X, labels):
    """LIBSVM text of CSR X with labels, in chunks of about CHUNK_NNZ
    nonzeros (at least one row each)."""
    indptr = X.indptr
    n = X.shape[0]
    start = 0
    while start < n:
        stop = int(np.searchsorted(indptr, indptr[start] + CHUNK_NNZ, side="right")) - 1
        stop = min(n, max(stop, start + 1))
        lo, hi = indptr[start], indptr[stop]
        yield libsvm_lines(indptr[start:stop + 1] - lo, X.indices[lo:hi], X.data[lo:hi],
                           labels[start:stop])
        start = stop


def _line_chunks(lines, labels=None):
    """Chunks of newline-terminated text lines; labels, when given, replace
    each line's first token."""
    step = 4096
    for i in range(0, len(lines), step):
        part = lines[i:i + step]
        if labels is not None:
            part = [t + b" " + _rest(ln) for t, ln in zip(labels[i:i + step], part)]
        yield b"\n".join(part) + b"\n"


def _rest(line):
    parts = line.split(None, 1)
    return parts[1] if len(parts) > 1 else b""


def _first_tokens(lines):
    """The labels of training lines: their first tokens."""
    toks = []
    for i, ln in enumerate(lines):
        parts = ln.split(None, 1)
        if not parts or parts[0].startswith(b"|"):
            raise ValueError("line %d of X has no label; training lines start with one" % (i + 1))
        toks.append(parts[0])
    return toks


def _line_labels(tokens):
    """Class labels from the lines' first tokens: numbers when they all are
    (so VW's 1..K stay in their order), else strings."""
    try:
        y = np.array([float(t) for t in tokens])
    except ValueError:
        return np.array([t.decode(errors="replace") for t in tokens])
    return y.astype(np.int64) if np.all(y == np.rint(y)) else y


class _SparsesonBase(BaseEstimator):
    """Parameters, command lines and the model file shared by both
    estimators; subclasses define the labels and what predictions mean."""

    def _flags(self, n_classes=0):
        """The training flags for the current parameters; errors name the
        parameter, as the binary's would name its flag."""
        if self.learner not in LEARNERS:
            raise ValueError("learner=%r: expected one of %s" % (self.learner, ", ".join(sorted(LEARNERS))))
        flags = ["--quiet", "-b", str(int(self.bit_precision))]
        flags += LEARNERS[self.learner]
        if self.sketch_size is not None:
            if self.learner in _FIRST_ORDER:
                raise ValueError("sketch_size=%r needs a sketching learner (learner='oja', 'fd', …); "
                                 "learner=%r has no sketch" % (self.sketch_size, self.learner))
            flags += ["-m", str(int(self.sketch_size))]
        if self.loss_function is not None and not (n_classes and self._multiclass() == "softmax"):
            flags += ["--loss_function", str(self.loss_function)]
        for name, flag in (("learning_rate", "-l"), ("power_t", "--power_t"), ("l1", "--l1"),
                           ("l2", "--l2")):
            value = getattr(self, name)
            if value is not None:
                flags += [flag, repr(float(value))]
        if self.random_seed is not None:
            flags += ["--random_seed", str(int(self.random_seed))]
        if n_classes:
            flags += ["--" + self._multiclass(), str(n_classes)]
        return flags + [str(a) for a in (self.extra_args or ())]

    def _multiclass(self):
        return "oaa"

    def _train(self, chunks, fmt, n_classes, resume, passes, keep_open=False):
        """Trains on chunks of text in format fmt, from the current model
        if resume. With keep_open (partial_fit) the binary keeps running
        after the chunks, for the next partial_fit's examples, until a
        call needs the model (_sync)."""
        session = self.__dict__.get("_session")
        if session is not None and not (keep_open and session.fmt == fmt and session.alive()):
            self._sync()
            session = None
        if session is None:
            binary = _binary.find_binary(self.sparseson_bin)
            args = self._flags(n_classes)
            if not resume and int(passes) > 1:
                # More passes read the examples again from the binary's
                # own cache: stdin can be read only once.
                args += ["--passes", str(int(passes)), "--cache_file", "cache"]
            # While it runs, model_ is the session's to write: reading it
            # (__getattr__) waits for the binary instead of giving a stale
            # model.
            session = _Session(binary, args, fmt, self.__dict__.pop("model_") if resume else None)
        self._session = session
        try:
            session.write(chunks)
        except BaseException:
            # The process is gone, and with it what it learnt since the
            # last _sync: model_ goes back to the model of that point.
            self._rollback()
            raise
        if not keep_open:
            self._sync()
        return self

    def _fitted(self):
        return "model_" in self.__dict__ or "_session" in self.__dict__

    def _discard(self):
        session = self.__dict__.pop("_session", None)
        if session is not None:
            session.kill()
            self.__dict__.pop("model_", None)

    def _sync(self):
        """Finishes a running training process, keeping its model."""
        session = self.__dict__.get("_session")
        if session is not None:
            try:
                model = session.finish()
            except BaseException:
                self._rollback()
                raise
            del self._session
            self.model_ = model

    def _rollback(self):
        session = self.__dict__.pop("_session", None)
        if session is not None and session.init is not None:
            self.model_ = session.init

    def __getattr__(self, name):
        if name == "model_" and "_session" in self.__dict__:
            self._sync()
            return self.__dict__["model_"]
        raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))

    def __getstate__(self):
        self._sync()
        state = super().__getstate__()
        state.pop("_session", None)
        return state

    def _predict_raw(self, X, out_flags):
        """Runs the model over X with out_flags (e.g. ["-p", "-"]); returns
        the binary's stdout, whether X was text lines, and their number."""
        self._sync()
        check_is_fitted(self, "model_")
        lines = _is_lines(X)
        if lines:
            data = _as_bytes_lines(X)
            chunks, fmt, n = _line_chunks(data), "auto", len(data)
        else:
            X = self._validate_data(X, accept_sparse="csr", dtype=np.float64, reset=False)
            X = sp.csr_matrix(X)
            n = X.shape[0]
            chunks, fmt = _csr_chunks(X, np.ones(n)), "libsvm"
        binary = _binary.find_binary(self.sparseson_bin)
        with tempfile.TemporaryDirectory(prefix="sparseson-") as tmp:
            model = os.path.join(tmp, "model")
            with open(model, "wb") as f:
                f.write(self.model_)
            out = _binary.run(binary, ["--quiet", "-t", "-i", model, "--format", fmt, *out_flags, "-"], chunks)
        return out, lines, n

    def _validate_fit(self, X, y, reset):
        """CSR X (float64) and 1-d y, or text lines (y None)."""
        if _is_lines(X):
            if y is not None:
                raise ValueError("X is text lines, which carry their labels: pass y=None")
            return _as_bytes_lines(X), None
        if y is None:
            raise ValueError("requires y to be passed, but the target y is None")
        X, y = self._validate_data(X, y, accept_sparse="csr", dtype=np.float64, reset=reset,
                                   y_numeric=not isinstance(self, ClassifierMixin))
        return sp.csr_matrix(X), column_or_1d(y, warn=True)

    def _more_tags(self):
        return {"requires_y": True}


def _scalars(out, lines, n):
    """One float per prediction line (a tag, if any, dropped)."""
    if not lines:
        v = np.fromstring(out, dtype=np.float64, sep=" ") if out.strip() else np.zeros(0)
    else:
        v = np.array([float(ln.split(None, 1)[0]) for ln in out.splitlines()])
    if v.shape[0] != n:
        raise _binary.SparsesonError("sparseson wrote %d predictions for %d examples" % (v.shape[0], n))
    return v


def _per_class(out, lines, n, k):
    """The "1:v1 … K:vK" lines of -r or --probabilities as an (n, K) array."""
    if lines:
        out = b"\n".join(b" ".join(ln.split()[:k]) for ln in out.splitlines())
    v = np.fromstring(out.replace(b":", b" "), dtype=np.float64, sep=" ") if out.strip() else np.zeros(0)
    if v.shape[0] != 2 * n * k:
        raise _binary.SparsesonError("sparseson wrote %d values for %d examples of %d classes"
                                     % (v.shape[0], n, k))
    return v.reshape(n, 2 * k)[:, 1::2]


class SparsesonClassifier(ClassifierMixin, _SparsesonBase):
    """A linear classifier trained online by sparseson.

    Two classes train one binary model on labels −1/+1 (classes_[0] is −1);
    more train --oaa K (one-against-all, any learner) or, with
    multiclass="softmax", --softmax K, on labels 1..K in the order of
    classes_. See python/README.md for what each parameter maps to.
    """

    def __init__(self, learner="adagrad", sketch_size=None, loss_function="logistic",
                 learning_rate=None, power_t=None, l1=None, l2=None, bit_precision=18,
                 passes=1, multiclass="oaa", random_seed=None, extra_args=(),
                 sparseson_bin=None):
        self.learner = learner
        self.sketch_size = sketch_size
        self.loss_function = loss_function
        self.learning_rate = learning_rate
        self.power_t = power_t
        self.l1 = l1
        self.l2 = l2
        self.bit_precision = bit_precision
        self.passes = passes
        self.multiclass = multiclass
        self.random_seed = random_seed
        self.extra_args = extra_args
        self.sparseson_bin = sparseson_bin

    def _multiclass(self):
        if self.multiclass not in ("oaa", "softmax"):
            raise ValueError("multiclass=%r: expected 'oaa' or 'softmax'" % (self.multiclass,))
        return self.multiclass

    def fit(self, X, y=None):
        """Trains a new model on X (CSR/CSC/dense array, or VW/LIBSVM text
        lines whose first token is the class label) and y."""
        self._discard()
        for attr in ("model_", "classes_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        return self._fit(X, y, classes=None, resume=False)

    def partial_fit(self, X, y=None, classes=None):
        """Trains the current model (a new one on the first call, which
        needs classes) further on X and y, one pass."""
        resume = self._fitted()
        if not resume and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        if resume and classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError("classes=%r is not the classes_ of the first call, %r" % (classes, self.classes_))
        return self._fit(X, y, classes=None if resume else classes, resume=resume, partial=True)

    def _fit(self, X, y, classes, resume, partial=False):
        X, y = self._validate_fit(X, y, reset=not resume)
        lines = y is None
        if lines:
            y = _line_labels(_first_tokens(X))
        else:
            check_classification_targets(y)
        if not resume:
            self.classes_ = np.unique(classes if classes is not None else y)
            if self.classes_.shape[0] < 2:
                raise ValueError("the classifier needs samples of at least 2 classes; got %d class: %r"
                                 % (self.classes_.shape[0], self.classes_))
        code = np.searchsorted(self.classes_, y)
        unknown = (code >= self.classes_.shape[0]) | (self.classes_[np.minimum(code, self.classes_.shape[0] - 1)] != y)
        if unknown.any():
            raise ValueError("y has labels not in classes_: %r" % (np.unique(np.asarray(y)[unknown])[:10],))
        k = self.classes_.shape[0]
        labels = np.where(code == 1, 1.0, -1.0) if k == 2 else code + 1.0
        if lines:
            chunks, fmt = _line_chunks(X, [b"%d" % v for v in labels.astype(np.int64)]), "auto"
        else:
            chunks, fmt = _csr_chunks(X, labels), "libsvm"
        return self._train(chunks, fmt, 0 if k == 2 else k, resume, 1 if partial else self.passes,
                           keep_open=partial)

    def _has_proba(self):
        if self.classes_.shape[0] > 2 and self._multiclass() == "softmax":
            return True
        return self.loss_function == "logistic"

    def decision_function(self, X):
        """Raw scores: (n,) for two classes (positive: classes_[1]), else
        (n, K); six significant digits, as the binary writes them."""
        check_is_fitted(self, "model_")
        out, lines, n = self._predict_raw(X, ["-r", "-"])
        if self.classes_.shape[0] == 2:
            return _scalars(out, lines, n)
        return _per_class(out, lines, n, self.classes_.shape[0])

    def predict(self, X):
        """The binary's own class predictions (--binary's sign, or the
        multiclass model's class), as labels of classes_."""
        check_is_fitted(self, "model_")
        if self.classes_.shape[0] == 2:
            out, lines, n = self._predict_raw(X, ["--binary", "-p", "-"])
            return self.classes_[(_scalars(out, lines, n) > 0).astype(np.intp)]
        out, lines, n = self._predict_raw(X, ["-p", "-"])
        k = _scalars(out, lines, n).astype(np.intp) - 1
        return self.classes_[np.clip(k, 0, self.classes_.shape[0] - 1)]

    @available_if(lambda self: not hasattr(self, "model_") or self._has_proba())
    def predict_proba(self, X):
        """Class probabilities: the logistic of the raw score for two
        classes (logistic loss), the binary's --probabilities for more
        (--oaa with logistic loss, or --softmax)."""
        check_is_fitted(self, "model_")
        if not self._has_proba():
            raise AttributeError("predict_proba needs loss_function='logistic' or multiclass='softmax'")
        if self.classes_.shape[0] == 2:
            p = expit(self.decision_function(X))
            return np.column_stack([1 - p, p])
        out, lines, n = self._predict_raw(X, ["--probabilities", "-p", "-"])
        return _per_class(out, lines, n, self.classes_.shape[0])

    def predict_log_proba(self, X):
        """The logarithm of predict_proba."""
        return np.log(self.predict_proba(X))

    def _more_tags(self):
        return {"requires_y": True, "binary_only": False}


class SparsesonRegressor(RegressorMixin, _SparsesonBase):
    """A linear regressor trained online by sparseson (squared loss by
    default; any --loss_function). Predictions are clamped to the range of
    the labels seen in training, as VW's are, and have six decimals."""

    def __init__(self, learner="adagrad", sketch_size=None, loss_function="squared",
                 learning_rate=None, power_t=None, l1=None, l2=None, bit_precision=18,
                 passes=1, random_seed=None, extra_args=(), sparseson_bin=None):
        self.learner = learner
        self.sketch_size = sketch_size
        self.loss_function = loss_function
        self.learning_rate = learning_rate
        self.power_t = power_t
        self.l1 = l1
        self.l2 = l2
        self.bit_precision = bit_precision
        self.passes = passes
        self.random_seed = random_seed
        self.extra_args = extra_args
        self.sparseson_bin = sparseson_bin

    def fit(self, X, y=None):
        """Trains a new model on X (CSR/CSC/dense array, or VW/LIBSVM text
        lines with their labels) and y."""
        self._discard()
        for attr in ("model_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        return self._fit(X, y, resume=False)

    def partial_fit(self, X, y=None):
        """Trains the current model (a new one on the first call) further
        on X and y, one pass."""
        return self._fit(X, y, resume=self._fitted(), partial=True)

    def _fit(self, X, y, resume, partial=False):
        X, y = self._validate_fit(X, y, reset=not resume)
        if y is None:
            chunks, fmt = _line_chunks(X), "auto"
        else:
            chunks, fmt = _csr_chunks(X, np.asarray(y, np.float64)), "libsvm"
        return self._train(chunks, fmt, 0, resume, 1 if partial else self.passes, keep_open=partial)

    def predict(self, X):
        """The binary's predictions (-p), six decimals."""
        check_is_fitted(self, "model_")
        out, lines, n = self._predict_raw(X, ["-p", "-"])
        return _scalars(out, lines, n)
