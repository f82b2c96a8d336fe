"""One module per device family; each registers its codec with `station.laser.codec.register`.

Modules are found by scanning this package, so a new protocol (the station's own `tape`
firmware protocol among them) registers itself by just existing here.
"""

from __future__ import annotations

import importlib
import pkgutil

from station.laser.codec import CODECS, Codec


def load_all() -> dict[str, type[Codec]]:
    """Import every protocol module of this package; return the codecs by device name."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    return dict(sorted(CODECS.items()))


def codec_class(name: str) -> type[Codec]:
    """The codec for `--device NAME`; KeyError says which names exist."""
    codecs = load_all()
    if name not in codecs:
        raise KeyError(f"no laser protocol named {name!r}; known: {', '.join(codecs)}")
    return codecs[name]
