"""python::threads: a system that refuses every new thread (issue 33: std::terminate took the interpreter down) gets
the same results from ringsched.simulate on the calling thread, and a warning on stderr."""

import os
import subprocess
import sys

PROGRAM = """
import sys
import ringsched
res = ringsched.simulate(sys.argv[1], threads=4)
sys.stdout.write(res.table())
"""


def run(example_path, starve):
    # glibc gives a new thread a stack of the stack limit: 4 GB of stack under a 3 GB address-space cap makes every
    # thread the run asks for fail with EAGAIN, as on a machine at its process or memory limit.
    limits = "ulimit -s 4000000 && ulimit -v 3000000 && " if starve else ""
    cmd = limits + 'exec "$0" -c "$1" "$2"'
    return subprocess.run(["bash", "-c", cmd, sys.executable, PROGRAM, example_path], capture_output=True, text=True,
                          env=dict(os.environ), check=False)


def test_refused_threads_give_the_same_table_on_the_calling_thread(example):
    path = example("tiny-2node.json")
    normal = run(path, starve=False)
    assert normal.returncode == 0, normal.stderr
    starved = run(path, starve=True)
    assert starved.returncode == 0, starved.stderr
    assert starved.stdout == normal.stdout
    assert "ringsched: warning: the system refused a new thread" in starved.stderr
    assert "continuing on 1 of the" in starved.stderr
