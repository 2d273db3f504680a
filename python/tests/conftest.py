"""Test setup: the package from this tree, and the sparseson binary.

The binary comes from $SPARSESON_BIN (the Go test wrapper builds one and
sets it), else from PATH; without one every test skips, saying so.
"""

import os
import shutil
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def pytest_collection_modifyitems(config, items):
    if os.environ.get("SPARSESON_BIN") or shutil.which("sparseson"):
        return
    skip = pytest.mark.skip(reason="no sparseson binary: set SPARSESON_BIN or put it on PATH")
    for item in items:
        item.add_marker(skip)
