"""A simulated device on a pseudo-terminal, the way a real one sits on /dev/ttyUSB0.

The host opens `port`, a symlink to the current pty (like /dev/serial/by-id/... or
/dev/rfcomm0), so the same path works again after `unplug()` and `replug()`, which close the
pty and open a new one: the host sees the device vanish and come back, as with a USB cable
pulled or a Bluetooth link that went to sleep.
"""

from __future__ import annotations

import os
import select
import tempfile
import threading
import time
import tty
from pathlib import Path

from station.fakes.laser.device import SimulatedDevice

TICK_S = 0.2


class SimulatedLaser:
    """A running simulated device: `.port` to open, `.close()` when done."""

    def __init__(self, device: SimulatedDevice, link_dir: str | os.PathLike | None = None,
                 tick_s: float = TICK_S) -> None:
        self.device = device
        self._own_dir = link_dir is None
        self._dir = Path(link_dir or tempfile.mkdtemp(prefix="station-laser-"))
        self._dir.mkdir(parents=True, exist_ok=True)
        self.port = str(self._dir / device.name)
        self.tick_s = tick_s
        self._lock = threading.RLock()           # one writer at a time on the pty
        self._master = self._slave = -1
        self._wake_r, self._wake_w = os.pipe()
        self._closed = False
        self.bytes_sent = 0                       # to the host, over every connection
        self.last_sent_at = 0.0                   # time.perf_counter() as the last write began
        self._plug()
        self._thread = threading.Thread(target=self._run, name=f"sim-{device.name}",
                                        daemon=True)
        self._thread.start()

    # --- controls ----------------------------------------------------------------------------
    def set_distance(self, mm: float) -> None:
        """The distance the device reads from now on."""
        self.device.distance_mm = mm

    def press(self) -> None:
        """Press the device's own measure button (pushed reading, if the device pushes)."""
        self.send(*self.device.press())

    def send(self, *frames: bytes) -> None:
        """Write frames to the host as they are (with the split fault, in pieces)."""
        with self._lock:
            for frame in frames:
                self._write(frame)

    def unplug(self) -> None:
        """Pull the cable: the pty closes and the port path leads nowhere."""
        with self._lock:
            self._unplug()
        os.write(self._wake_w, b"u")

    def replug(self) -> None:
        """Plug it back in: a new pty behind the same port path."""
        with self._lock:
            self._plug()
        os.write(self._wake_w, b"r")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        os.write(self._wake_w, b"x")
        self._thread.join(timeout=2)
        with self._lock:
            self._unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)
        if self._own_dir:
            self._dir.rmdir()

    def __enter__(self) -> SimulatedLaser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the pty -----------------------------------------------------------------------------
    def _plug(self) -> None:
        if self._master >= 0:
            return
        self.device.link_lost()                   # before the host can reach the new pty
        master, slave = os.openpty()
        tty.setraw(slave)                         # no echo, no line discipline: bytes as sent
        tty.setraw(master)
        os.set_blocking(master, False)            # a read never blocks the simulator
        self._master, self._slave = master, slave
        link = Path(self.port + ".new")
        link.unlink(missing_ok=True)
        link.symlink_to(os.ttyname(slave))
        os.replace(link, self.port)               # the host can open it from here on

    def _unplug(self) -> None:
        if self._master < 0:
            return
        Path(self.port).unlink(missing_ok=True)
        os.close(self._master)
        os.close(self._slave)
        self._master = self._slave = -1

    def _write(self, frame: bytes) -> None:
        if self._master < 0:
            return                                  # unplugged: the bytes go nowhere
        faults = self.device.faults
        pieces = [frame]
        if faults.split and len(frame) > 1:
            cuts = sorted(faults.rng.sample(range(1, len(frame)), min(2, len(frame) - 1)))
            pieces = [frame[a:b] for a, b in zip([0, *cuts], [*cuts, len(frame)])]
        for i, piece in enumerate(pieces):
            if i:
                time.sleep(0.005)
            self.last_sent_at = time.perf_counter()
            self.bytes_sent += os.write(self._master, piece)

    def _run(self) -> None:
        next_tick = time.monotonic() + self.tick_s
        while not self._closed:
            master = self._master
            fds = [self._wake_r] + ([master] if master >= 0 else [])
            try:
                ready, _, _ = select.select(fds, [], [], max(0.0, next_tick - time.monotonic()))
            except OSError:                        # unplugged between reading fd and select
                continue
            if self._wake_r in ready:
                os.read(self._wake_r, 64)
            if master in ready and master >= 0:
                self._serve(master)
            if time.monotonic() >= next_tick:
                next_tick = time.monotonic() + self.tick_s
                self.send(*self.device.tick())

    def _serve(self, master: int) -> None:
        with self._lock:                 # a replug may have reused the fd number meanwhile
            if master != self._master:
                return
            try:
                data = os.read(master, 4096)
            except OSError:              # nothing there after all (non-blocking read)
                return
        replies = self.device.receive(data)
        if replies and self.device.faults.delay_s:
            time.sleep(self.device.faults.delay_s)
        self.send(*replies)

