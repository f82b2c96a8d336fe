"""Simulated laser tapes on pseudo-terminals, speaking the real wire protocols byte-exact.

    sim = start_simulated("glm", distance_mm=254.0)   # sim.port: the path to open
    sim.set_distance(508.0); sim.press(); sim.unplug(); sim.replug(); sim.close()

Device modules in this package register themselves with `@simulator` (see `device`); the
package is scanned, so a new one plugs in by just existing here.
"""

from __future__ import annotations

import importlib
import pkgutil

from station.fakes.laser.device import SIMULATORS, SimulatedDevice
from station.fakes.laser.ptylink import SimulatedLaser


def load_all() -> dict[str, type[SimulatedDevice]]:
    """Import every module of this package; return the simulated devices by name."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    return dict(sorted(SIMULATORS.items()))


def simulator_class(name: str) -> type[SimulatedDevice]:
    devices = load_all()
    if name not in devices:
        raise KeyError(f"no simulated laser device {name!r}; known: {', '.join(devices)}")
    return devices[name]


def start_simulated(device_name: str, distance_mm: float = 1000.0,
                    link_dir: str | None = None) -> SimulatedLaser:
    """Start a simulated device on a pty; the handle has `.port`, `.set_distance(mm)`,
    `.press()`, `.unplug()`, `.replug()`, `.device.faults` and `.close()`."""
    return SimulatedLaser(simulator_class(device_name)(distance_mm), link_dir=link_dir)
