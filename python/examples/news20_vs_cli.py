#!/usr/bin/env python3
"""The estimator against the command line on news20 (README, "Python").

Loads news20's LIBSVM train and test files as CSR matrices (outside the
timing), then alternates, for --rounds rounds:

  cli:  sparseson --loss_function logistic -f M train.svm.gz, then
        sparseson -t -i M --binary -p - test.svm.gz
  py:   SparsesonClassifier(...).fit(X_train, y_train).predict(X_test)

and prints each contender's least wall and CPU time (this process and its
children) over the rounds, their ratio, the test accuracy of both and
whether the predictions and the model files are identical; then partial_fit over batches of
--batch rows with one running binary (the estimator's way) and with the
model written and reloaded after every batch.

    python/examples/news20_vs_cli.py [--data ../shared/data] [--rounds 3]
        [--learner adagrad] [--sparseson BIN]
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import load_svmlight_files

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sparseson import LEARNERS, SparsesonClassifier, find_binary  # noqa: E402


def cpu():
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(f):
    w, c = time.perf_counter(), cpu()
    out = f()
    return out, time.perf_counter() - w, cpu() - c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/data"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--learner", default="adagrad", choices=sorted(LEARNERS))
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--sparseson", default=None)
    a = ap.parse_args()
    binary = find_binary(a.sparseson)
    train, test = (os.path.join(a.data, "news20.%s.svm.gz" % p) for p in ("train", "test"))
    if not os.path.exists(train):
        sys.exit("no %s: give --data DIR (the shared data directory)" % train)
    # One call, so both matrices have the same number of columns.
    X, y, Xt, yt = load_svmlight_files([train, test])
    flags = ["--loss_function", "logistic"] + list(LEARNERS[a.learner])
    tmp = tempfile.mkdtemp()

    def cli():
        model = os.path.join(tmp, "m")
        subprocess.run([binary, "--quiet", *flags, "-f", model, train], check=True)
        out = subprocess.run([binary, "--quiet", "-t", "-i", model, "--binary", "-p", "-", test],
                             check=True, capture_output=True).stdout
        return np.fromstring(out, sep=" ")

    fitted = []

    def py():
        clf = SparsesonClassifier(learner=a.learner, sparseson_bin=binary).fit(X, y)
        fitted[:] = [clf]
        return clf.predict(Xt)

    load0 = os.getloadavg()
    times = {"cli": [], "py": []}
    for _ in range(a.rounds):
        for name, f in (("cli", cli), ("py", py)):
            pred, w, c = timed(f)
            times[name].append((w, c))
            if name == "cli":
                want = pred
            else:
                got = pred
    print("rounds: %d, learner: %s, load average at the start: %s"
          % (a.rounds, a.learner, " ".join("%.2f" % v for v in load0)))
    for name in ("cli", "py"):
        print("%-4s wall %s  cpu %s" % (name, " ".join("%.3f" % w for w, _ in times[name]),
                                        " ".join("%.3f" % c for _, c in times[name])))
    wc, wp = min(w for w, _ in times["cli"]), min(w for w, _ in times["py"])
    cc, cp = min(c for _, c in times["cli"]), min(c for _, c in times["py"])
    print("least wall: cli %.3f s, py %.3f s (py/cli %.2f); least cpu: cli %.3f s, py %.3f s (py/cli %.2f)"
          % (wc, wp, wp / wc, cc, cp, cp / cc))
    with open(os.path.join(tmp, "m"), "rb") as f:
        same_model = f.read() == fitted[0].model_
    print("test accuracy: cli %.4f, py %.4f; predictions identical: %s; model files identical: %s"
          % ((want == yt).mean(), (got == yt).mean(), np.array_equal(want, got), same_model))

    def batches(reload):
        clf = SparsesonClassifier(learner=a.learner, sparseson_bin=binary)
        for i in range(0, X.shape[0], a.batch):
            clf.partial_fit(X[i:i + a.batch], y[i:i + a.batch], classes=[-1, 1])
            if reload:
                clf.model_  # finishes the binary: the next batch reloads the model
        return clf.model_

    whole = SparsesonClassifier(learner=a.learner, sparseson_bin=binary).fit(X, y).model_
    for reload in (False, True, False, True, False, True):
        model, w, c = timed(lambda: batches(reload))
        print("partial_fit, %d batches of %d, %s: wall %.3f s cpu %.3f s, model as fit's: %s"
              % (-(-X.shape[0] // a.batch), a.batch, "reload per batch" if reload else "one running binary",
                 w, c, model == whole))
    print("load average at the end:", " ".join("%.2f" % v for v in os.getloadavg()))


if __name__ == "__main__":
    main()
