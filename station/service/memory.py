"""Give the memory a roll freed back to the system while the station waits.

glibc keeps large freed blocks (a frame's crop pyramid, the simulated camera's rendered
tray) in the process's heap, where they still count as resident memory until reused: a
station at rest held 150-190 MB, depending on what the last rolls happened to allocate.
`malloc_trim` hands the free pages back in a millisecond or two. Other C libraries (musl,
macOS) have no such call: then this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util


def _malloc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def release_freed_memory() -> bool:
    """Return freed heap pages to the system; False where the C library cannot."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
