#!/usr/bin/env python3
"""Sharded sparseson training on a Dask cluster, with iterative parameter mixing.

Each round maps the shard files over the cluster with dask.bag; every task
runs the sparseson binary on one shard with --total K, K the number of
shards (from scratch in round 1, from the last merged model with -i
afterwards), and the driver merges the round's
models with `sparseson merge` (with --base from round 2 on). One round is
the one-shot merge; R rounds are R passes over the data (iterative
parameter mixing). Dask does the scheduling; this script only orders the
rounds. docs/scaling.md.

    dask_train.py [--scheduler ADDRESS | --local N] [--rounds R]
                  [--sparseson BIN] [--workdir DIR] -o OUT
                  SHARD... -- TRAINING FLAGS...

--local N starts a LocalCluster of N single-threaded worker processes on
the loopback interface; --scheduler connects to a running cluster
(`dask-scheduler`, `dask-worker tcp://host:8786` on every machine). The
workers run the binary on the shard files and write their models into the
work directory, so on several machines the binary, the shards and the work
directory must be at the same paths everywhere (a shared file system). The
merges run in this process.

Needs Dask's distributed scheduler: Debian's python3-distributed, or
`pip install "dask[distributed]"`.

Example, 4 workers on this machine, 3 rounds of FD-SON on 4 shards of news20:

    scripts/shard.sh 4 news20.train.vw.gz /tmp/n20
    examples/dask_train.py --local 4 --rounds 3 --sparseson ./sparseson \\
        -o n20.model /tmp/n20.*.gz -- --fd -m 10 --loss_function logistic
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


def train(job):
    """Runs one shard's training (on a Dask worker); returns its model path."""
    binary, flags, shard, model, init = job
    cmd = [binary, *flags, "--quiet", "-f", model]
    if init:
        cmd += ["-i", init]
    cmd.append(shard)
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s" % (" ".join(cmd), run.returncode, run.stderr))
    return model


def merge(binary, out, models, base):
    cmd = [binary, "merge", "--quiet", "-o", out]
    if base:
        cmd += ["--base", base]
    run = subprocess.run(cmd + models, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s" % (" ".join(cmd + models), run.returncode, run.stderr))


def main(argv):
    if "--" in argv:
        cut = argv.index("--")
        argv, flags = argv[:cut], argv[cut + 1:]
    else:
        flags = []
    ap = argparse.ArgumentParser(description="Sharded sparseson training on Dask (see the module docstring).")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="address of a running Dask scheduler, e.g. tcp://head:8786")
    where.add_argument("--local", type=int, metavar="N", help="start a LocalCluster of N worker processes on 127.0.0.1")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of parameter mixing (default 1)")
    ap.add_argument("--sparseson", default=shutil.which("sparseson"), help="the sparseson binary (default: from PATH)")
    ap.add_argument("--workdir", help="where the per-round models go (default: a temporary directory, removed at the end)")
    ap.add_argument("-o", "--output", required=True, help="the merged model")
    ap.add_argument("shards", nargs="+", help="the shard files (each worker must be able to read them)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if not args.sparseson or not os.access(args.sparseson, os.X_OK):
        ap.error("no sparseson binary: build it (go build ./cmd/sparseson) and pass --sparseson")
    binary = os.path.abspath(args.sparseson)
    shards = [os.path.abspath(s) for s in args.shards]
    for s in shards:
        if not os.access(s, os.R_OK):
            ap.error("cannot read shard %s" % s)
    out = os.path.abspath(args.output)

    try:
        import dask.bag as db
        from dask.distributed import Client, LocalCluster
    except ImportError as e:
        sys.exit("dask_train.py: Dask's distributed scheduler is not installed (%s); "
                 "apt-get install python3-distributed, or pip install 'dask[distributed]'" % e)

    cleanup = args.workdir is None
    work = os.path.abspath(args.workdir or tempfile.mkdtemp(prefix="sparseson-dask."))
    os.makedirs(work, exist_ok=True)
    cluster = None
    try:
        if args.local:
            cluster = LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
            client = Client(cluster)
        else:
            client = Client(args.scheduler)
        with client:
            start = time.time()
            prev = None
            for r in range(1, args.rounds + 1):
                t0 = time.time()
                # --total: each shard is one of len(shards) (before the user's
                # flags, which may override it; docs/scaling.md).
                shard_flags = ["--total", str(len(shards))] + flags
                jobs = [(binary, shard_flags, s, os.path.join(work, "r%d.%d.model" % (r, k + 1)), prev)
                        for k, s in enumerate(shards)]
                models = db.from_sequence(jobs, npartitions=len(jobs)).map(train).compute()
                dest = out if r == args.rounds else os.path.join(work, "r%d.model" % r)
                merge(binary, dest, models, prev)
                prev = dest
                print("round %d: %d shards trained and merged in %.2f s" % (r, len(shards), time.time() - t0),
                      file=sys.stderr)
            print("total: %d rounds in %.2f s wall, model %s" % (args.rounds, time.time() - start, out),
                  file=sys.stderr)
    finally:
        if cluster is not None:
            cluster.close()
        if cleanup:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
