"""Finding the sparseson binary and running it with the data on a pipe."""

import fcntl
import os
import shutil
import subprocess
import threading
import weakref

ENV_VAR = "SPARSESON_BIN"

# Flags the estimators pass; a binary without one of them is too old (or
# not sparseson at all) and would fail in the middle of a fit instead.
REQUIRED_FLAGS = ("--format", "--testonly", "--raw_predictions", "--probabilities",
                  "--oaa", "--softmax", "--cache_file", "--final_regressor",
                  "--initial_regressor", "--quiet")

_F_SETPIPE_SZ = 1031  # Linux's fcntl, absent from the fcntl module before 3.10

_checked = {}  # (realpath, mtime) of binaries that passed the check


class SparsesonError(RuntimeError):
    """The sparseson binary is missing, incompatible or failed."""


def find_binary(explicit=None):
    """The binary's path: the sparseson_bin parameter, else $SPARSESON_BIN,
    else sparseson on PATH; checked once per file for the flags we use."""
    if explicit:
        path, where = explicit, "sparseson_bin=%r" % explicit
    elif os.environ.get(ENV_VAR):
        path, where = os.environ[ENV_VAR], "$%s=%r" % (ENV_VAR, os.environ[ENV_VAR])
    else:
        path, where = shutil.which("sparseson"), "PATH"
        if path is None:
            raise SparsesonError(
                "no sparseson binary: pass sparseson_bin=PATH, set $%s, or put sparseson on PATH "
                "(build it with: go build -o sparseson ./cmd/sparseson)" % ENV_VAR)
    found = shutil.which(path) if os.sep not in path else path
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise SparsesonError("the sparseson binary from %s is not an executable file" % where)
    real = os.path.realpath(found)
    key = (real, os.stat(real).st_mtime_ns)
    if key not in _checked:
        _checked[key] = _check(found, where)
    return found


def _check(path, where):
    try:
        ver = subprocess.run([path, "--version"], capture_output=True, timeout=60)
        hlp = subprocess.run([path, "--help"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SparsesonError("cannot run the sparseson binary from %s: %s" % (where, e)) from e
    version = ver.stdout.decode(errors="replace").strip()
    if ver.returncode != 0 or not version.startswith("sparseson"):
        raise SparsesonError("%s (from %s) is not sparseson: --version printed %r"
                             % (path, where, version[:200]))
    text = (hlp.stdout + hlp.stderr).decode(errors="replace")
    missing = [f for f in REQUIRED_FLAGS if f not in text]
    if missing:
        raise SparsesonError("%s (%s, from %s) is incompatible: it lacks %s; rebuild it from a "
                             "current checkout" % (path, version, where, ", ".join(missing)))
    return version


def _drain(stream, parts):
    for block in iter(lambda: stream.read(1 << 16), b""):
        parts.append(block)


def _stop(proc, readers):
    """Kills proc if it still runs and releases its pipes; safe to call
    twice (it is also the weakref finalizer of a Process)."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for t in readers:
        if t.ident is not None:
            t.join()
    for f in (proc.stdin, proc.stdout, proc.stderr):
        try:
            f.close()
        except OSError:
            pass  # BrokenPipeError flushing stdin of a dead process


class Process:
    """One run of the binary with examples written to its stdin, possibly
    over several write calls. The process is killed when the object is
    closed by kill(), collected, or left at interpreter exit, so no run
    outlives its owner."""

    def __init__(self, binary, args):
        self.args = args
        self.proc = subprocess.Popen([binary, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._out, self._err = [], []
        readers = [threading.Thread(target=_drain, args=(self.proc.stdout, self._out), daemon=True),
                   threading.Thread(target=_drain, args=(self.proc.stderr, self._err), daemon=True)]
        self._finalizer = weakref.finalize(self, _stop, self.proc, readers)
        try:
            # A bigger pipe lets the next chunk be formatted while the
            # binary parses the last one; harmless where refused.
            fcntl.fcntl(self.proc.stdin, _F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass
        for t in readers:
            t.start()
        self._readers = readers

    def write(self, chunks):
        """Writes each bytes object of chunks; raises SparsesonError (and
        kills the process) if the binary stopped reading."""
        try:
            for chunk in chunks:
                self.proc.stdin.write(chunk)
        except BrokenPipeError:
            self.proc.wait()
            self._fail()
        except BaseException:
            self.kill()
            raise

    def finish(self):
        """Closes stdin, waits for the binary and returns its stdout."""
        try:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass  # the exit status says why
            self.proc.wait()
        except BaseException:
            self.kill()
            raise
        self._finalizer()
        if self.proc.returncode != 0:
            self._fail()
        return b"".join(self._out)

    def alive(self):
        return self._finalizer.alive and self.proc.poll() is None

    def kill(self):
        self._finalizer()

    def _fail(self):
        self.kill()
        msg = b"".join(self._err).decode(errors="replace").strip()
        raise SparsesonError("sparseson %s exited with status %d:\n%s"
                             % (" ".join(self.args), self.proc.returncode, msg[-4000:]))


def run(binary, args, chunks=()):
    """Runs binary with args and chunks on its stdin; returns its stdout."""
    p = Process(binary, args)
    p.write(chunks)
    return p.finish()
