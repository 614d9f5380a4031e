"""examples/python/find_ringsched.py — the examples' one way to import ringsched: installed or on PYTHONPATH, else the
build tree's (build/python of this file's checkout), so that each example runs from any folder once the module is
built; without it, a one-line message that says how to build it and which interpreter to use."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def import_ringsched(script):
    try:
        import ringsched
    except ImportError:
        sys.path.insert(0, os.path.join(ROOT, "build", "python"))
        try:
            import ringsched
        except ImportError as e:
            sys.exit(f"{script}: cannot import ringsched with {sys.executable} ({e}): build it "
                     "(cmake --build build --target ringsched_python) and run this with Debian's /usr/bin/python3")
    return ringsched
