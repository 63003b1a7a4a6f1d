"""engine/runtime.py: the garbage-collector tuning of serve and worker processes (in a subprocess,
since freezing and thresholds are process-wide)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc, sys
from engine.runtime import tune_gc
from engine.settings import Settings
keep = [[i] for i in range(10_000)]  # long-lived objects from "startup"
before = gc.get_freeze_count()
tune_gc(Settings(gc_young_threshold=int(sys.argv[1])))
print(before, gc.get_freeze_count(), *gc.get_threshold())
"""


def run(threshold: int) -> list[int]:
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(threshold)], capture_output=True, text=True, check=True)
    return [int(v) for v in out.stdout.split()]


def test_startup_objects_are_frozen_and_the_young_threshold_raised() -> None:
    before, frozen, young, middle, old = run(20_000)
    assert before == 0
    assert frozen > 10_000
    assert (young, middle, old) == (20_000, 10, 10)


def test_zero_keeps_pythons_thresholds() -> None:
    _before, frozen, young, _middle, _old = run(0)
    assert frozen > 10_000
    assert young == 700
