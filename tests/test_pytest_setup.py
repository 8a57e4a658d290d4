"""The test run's own setup: pyproject's addopts and tests/conftest.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_pytest_without_xdist_accepts_the_addopts_and_runs_in_one_process():
    # -p no:xdist stands for a pytest installed without the `test` extra; -v undoes addopts' -q,
    # so the header shows
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-v", "--collect-only",
                           "tests/test_constants.py"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pytest-xdist is not installed" in done.stdout
    assert "test_constants.py" in done.stdout
