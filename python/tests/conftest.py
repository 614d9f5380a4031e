"""Shared fixtures of the Python module's tests: the source tree, the CLI binary, a fresh strategy name per test."""

import itertools
import os
import pathlib

import pytest

SOURCE = pathlib.Path(os.environ.get("RINGSCHED_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BINARY = os.environ.get("RINGSCHED_BINARY", str(SOURCE / "build" / "bin" / "ringsched"))
_names = itertools.count()


@pytest.fixture
def source():
    return SOURCE


@pytest.fixture
def binary():
    return BINARY


@pytest.fixture
def example(source):
    return lambda name: str(source / "workloads" / "examples" / name)


@pytest.fixture
def fresh_name():
    """A strategy name no other test registered (the registry lives as long as the process)."""
    return lambda stem: f"{stem}_{next(_names)}"
