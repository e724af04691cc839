"""The target of the agent's benchmarks: tests/agent/sleepers.c (N threads sleeping on a
condition variable), built once into a scratch directory."""

import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def build_sleepers(tmp):
    cc = shutil.which("cc") or shutil.which("gcc")
    exe = os.path.join(tmp, "sleepers")
    subprocess.run(
        [cc, "-O2", "-pthread", "-o", exe, os.path.join(HERE, "..", "tests", "agent", "sleepers.c")], check=True
    )
    return exe
