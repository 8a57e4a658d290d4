"""What the cycle collector would find of Pitwall's own objects after some work.

Counting everything gc.collect() frees is not a test of ours: an earlier test's threads (a Dask
cluster shutting down, say) may leave their garbage at any moment. So the collector saves what it
finds, and only objects of Pitwall's modules or of its generated rules code count.
"""

from __future__ import annotations

import gc
import os
import types

import pitwall
from pitwall.interpreter.runtime import GENERATED

_ENGINE = os.path.join(os.path.dirname(pitwall.__file__), "interpreter") + os.sep


def _ours(obj) -> bool:
    if isinstance(obj, types.FrameType):
        return _our_file(obj.f_code.co_filename)
    if isinstance(obj, types.FunctionType):
        return _our_file(obj.__code__.co_filename)
    if isinstance(obj, type):  # a class made for a program: a State, a kind of card
        return obj.__module__.startswith("pitwall")
    return type(obj).__module__.startswith("pitwall")


def _our_file(name: str) -> bool:
    return name == GENERATED or name.startswith(_ENGINE)


def garbage_of_ours(work) -> list:
    """Run work() with the collector off, then collect: the objects of ours it found in cycles."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        work()
        gc.collect()
        found = [o for o in gc.garbage if _ours(o)]
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()
    return found
