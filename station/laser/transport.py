"""The one owner of a laser tape's serial port: opening, requests, pushed readings, reconnect.

A listener thread reads the port and feeds the codec. A decoded answer to the pending
request goes to `request()`; every other reading or device error (GLM auto-sync, the DISTO's
SEND key, a continuous mode) goes to the pushed queue and to `on_event`. When the port
fails (cable pulled, Bluetooth link asleep) the thread closes it and reopens it with
exponential back-off. A reading is handed on the moment its last byte is decoded, so one
that arrived whole is never lost by a reconnect, and the codec is reset on reconnect so the
half frame cut off by the unplug can never be completed into a wrong one.

Every write and the close hold one lock: pyserial cannot close a port under a write that is
already past its is-open check (the write would use a closed, perhaps reused, descriptor).
A write that fails counts as a lost link: the request waits for the reconnect and tries again.
"""

from __future__ import annotations

import errno
import logging
import os
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import serial
from serial.tools import list_ports

from station.laser.codec import Codec, DeviceError, Event, Notice, Reading

log = logging.getLogger(__name__)

PUSHED_KEPT = 256      # pushed readings waiting for a taker; older ones are dropped
VID_PID = re.compile(r"^([0-9a-fA-F]{4}):([0-9a-fA-F]{4})$")


class PortNotFound(Exception):
    """The port named on the command line (or in the config) is not there: `what` says so,
    the message adds the ports this machine sees and what to do."""

    def __init__(self, what: str) -> None:
        super().__init__(_not_found(what))
        self.what = what


class LinkTimeout(TimeoutError):
    """The device did not answer in time."""


@dataclass
class LinkSettings:
    """Where the device is and how its line is framed; back-off for reconnecting."""

    port: str                       # a path (/dev/ttyUSB0, /dev/rfcomm0) or USB VID:PID
    baudrate: int
    bytesize: int = 8
    parity: str = "N"
    stopbits: float = 1
    backoff_initial_s: float = 0.1
    backoff_max_s: float = 5.0
    read_timeout_s: float = 0.05    # how long a read waits: bounds how fast close() returns
    stale_after_timeouts: int = 2   # unanswered requests in a row before reopening the link


def visible_ports() -> list[str]:
    """The serial ports this machine shows, as 'path (description) [VID:PID]'."""
    shown = []
    for info in sorted(list_ports.comports(), key=lambda i: i.device):
        ids = f" [{info.vid:04x}:{info.pid:04x}]" if info.vid is not None else ""
        shown.append(f"{info.device} ({info.description}){ids}")
    return shown


def resolve_port(spec: str) -> str:
    """The device path for `spec`: a path as given, or the port with that USB VID:PID."""
    match = VID_PID.match(spec)
    if not match:
        return spec
    vid, pid = int(match[1], 16), int(match[2], 16)
    for info in list_ports.comports():
        if info.vid == vid and info.pid == pid:
            return info.device
    raise PortNotFound(f"no USB serial device with VID:PID {spec}")


def _not_found(what: str) -> str:
    ports = visible_ports()
    seen = "\n  ".join(ports) if ports else "(none)"
    return (f"{what}. Serial ports this machine sees:\n  {seen}\n"
            "Plug the device in (or bind its Bluetooth serial port, see docs/laser.md) "
            "and pass --port PATH or --port VID:PID.")


class Transport:
    """Owns the serial port of one laser device; thread-safe for one requester at a time."""

    def __init__(self, codec: Codec, settings: LinkSettings,
                 on_event: Callable[[Event], None] | None = None,
                 on_connect: tuple[str, ...] = ()) -> None:
        self.codec = codec
        self.settings = settings
        self.on_event = on_event
        self.on_connect = on_connect          # commands to send after every (re)connect
        self.on_pushed: Callable[[], None] | None = None   # called after each pushed reading
        self.connected = threading.Event()
        self.reconnects = 0
        self.last_error = ""                  # why the port could not be opened, last time
        self.bytes_received = 0               # over every connection, for tests and stats
        self._serial: serial.Serial | None = None
        self._codec_lock = threading.Lock()   # the reader feeds while a requester encodes
        self._request_lock = threading.Lock()
        self._port_lock = threading.Lock()    # a write and the close never overlap
        self._reply: queue.Queue[Event] | None = None
        self._pushed: queue.Queue[Event] = queue.Queue(maxsize=PUSHED_KEPT)
        self._closing = threading.Event()
        self._stale = threading.Event()
        self._timeouts = 0
        self._thread: threading.Thread | None = None

    # --- life cycle -----------------------------------------------------------------------
    def open(self, wait: bool = False) -> Transport:
        """Open the port now (PortNotFound with the ports it can see if it is not there),
        then keep it open from the listener thread. With `wait`, a port that is not there
        is not an error: the listener opens it when it appears (`connected`, `last_error`)."""
        if self._thread is not None:
            raise RuntimeError("this transport is already open")
        try:
            self._serial = self._open_port()
        except PortNotFound as error:
            self.last_error = error.what
            if not wait:
                raise
        if self._serial is not None:
            self._connected()
        else:
            log.warning("laser %s not there yet (%s): waiting for it", self.settings.port,
                        self.last_error)
        self._thread = threading.Thread(target=self._listen, daemon=True,
                                        name=f"laser-{self.codec.name}")
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._drop()

    def __enter__(self) -> Transport:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- talking to the device ----------------------------------------------------------------
    def request(self, command: str = "measure", timeout: float = 5.0) -> Reading | DeviceError:
        """Send `command`, wait for the reading or device error that answers it."""
        with self._request_lock:
            reply: queue.Queue[Event] = queue.Queue()
            self._reply = reply
            try:
                deadline = time.monotonic() + timeout
                self._write(command, deadline)
                try:
                    answer = reply.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    self._timed_out()
                    raise LinkTimeout(
                        f"the {self.codec.name} device did not answer {command!r} within "
                        f"{timeout:g} s (asleep, out of range of Bluetooth, or wrong "
                        "--baud?)") from None
                self._timeouts = 0
                return answer
            finally:
                self._reply = None

    def send(self, command: str, timeout: float = 5.0) -> None:
        """Send a command whose answer, if any, only goes to the log (laser on, etc.)."""
        self._write(command, time.monotonic() + timeout)

    def next_pushed(self, timeout: float | None = None) -> Event | None:
        """The next reading or device error the device sent on its own; None on timeout."""
        try:
            return self._pushed.get(timeout=timeout)
        except queue.Empty:
            return None

    # --- inside -----------------------------------------------------------------------------
    def _open_port(self) -> serial.Serial:
        s = self.settings
        stopbits = int(s.stopbits) if s.stopbits in (1, 2) else s.stopbits
        try:
            return serial.Serial(resolve_port(s.port), baudrate=s.baudrate, bytesize=s.bytesize,
                                 parity=s.parity, stopbits=stopbits, timeout=s.read_timeout_s,
                                 write_timeout=1.0, exclusive=True)
        except serial.SerialException as error:
            reason = os.strerror(error.errno) if error.errno else str(error)
            if error.errno == errno.EACCES:
                reason += (" (add your user to the dialout group: sudo usermod -aG dialout "
                           "$USER, then log in again)")
            elif error.errno in (errno.EAGAIN, errno.EWOULDBLOCK):   # exclusive: two readers
                # of one port would each get half the bytes
                reason = ("in use by another program (the station service? sudo systemctl "
                          "stop station while you calibrate or measure from the command line)")
            raise PortNotFound(f"cannot open {s.port}: {reason}") from None

    def _write(self, command: str, deadline: float) -> None:
        while True:
            if not self.connected.wait(timeout=max(0.0, deadline - time.monotonic())):
                raise LinkTimeout(f"the {self.codec.name} device is not connected "
                                  f"({self.settings.port}); still trying to reconnect")
            with self._codec_lock:
                data = self.codec.encode(command)
            if self._send_bytes(data):
                return

    def _send_bytes(self, data: bytes) -> bool:
        """Write to the port; False if there is none or it failed (then the listener is
        told to reopen it, unless it already has)."""
        with self._port_lock:
            port = self._serial
            if port is None:                  # between a drop and the reconnect
                return False
            try:
                port.write(data)
                return True
            except (serial.SerialException, OSError) as error:
                log.info("laser link %s: write failed: %s", self.settings.port, error)
                self.connected.clear()        # still this port: _drop needs the lock
                self._stale.set()
                return False

    def _listen(self) -> None:
        while not self._closing.is_set():
            port = self._serial
            if port is None or self._stale.is_set():
                self._drop()
                self._reconnect()
                continue
            try:
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError, TypeError) as error:
                log.info("laser link %s lost: %s", self.settings.port, error)
                self._drop()
                continue
            if data:
                self._received(data)

    def _received(self, data: bytes) -> None:
        self.bytes_received += len(data)
        with self._codec_lock:
            try:
                events = self.codec.feed(data)
                answer_back = self.codec.outgoing()
            except Exception:                 # a codec bug must not stop the listener
                log.exception("laser codec %s failed on %r; its buffer is reset",
                              self.codec.name, data[:64])
                self.codec.reset()
                return
        if answer_back:
            self._send_bytes(answer_back)
        for event in events:
            self._dispatch(event)

    def _dispatch(self, event: Event) -> None:
        reply = self._reply
        if isinstance(event, (Reading, DeviceError)):
            answers = reply is not None and not getattr(event, "pushed", False)
            if answers:
                self._reply = None
                reply.put(event)
            else:
                self._push(event)
        else:
            log.debug("laser %s: %s %s", self.codec.name, event.kind, event.detail)
        self._notify(event)

    def _push(self, event: Event) -> None:
        """Queue a pushed reading; when nobody takes them, the oldest make room."""
        while True:
            try:
                self._pushed.put_nowait(event)
                break
            except queue.Full:
                try:
                    self._pushed.get_nowait()
                except queue.Empty:
                    pass
        self._call(self.on_pushed)

    def _notify(self, event: Event) -> None:
        self._call(self.on_event, event)

    def _call(self, callback: Callable[..., None] | None, *args: Event) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:                     # the listener must outlive its callback
            log.exception("laser callback %s failed on %s", callback, args)

    def _reconnect(self) -> None:
        delay = self.settings.backoff_initial_s
        while not self._closing.is_set():
            try:
                self._serial = self._open_port()
            except (PortNotFound, OSError) as error:
                self.last_error = getattr(error, "what", str(error))
                self._closing.wait(delay)
                delay = min(delay * 2, self.settings.backoff_max_s)
                continue
            self.reconnects += 1
            log.info("laser link %s back after reconnecting", self.settings.port)
            self._connected()
            return

    def _connected(self) -> None:
        with self._codec_lock:
            self.codec.reset()                # a half frame from before the cut is gone
        self._stale.clear()
        self._timeouts = 0
        for command in self.on_connect:
            with self._codec_lock:
                data = self.codec.encode(command)
            if not self._send_bytes(data):
                return
        self.connected.set()
        self._notify(Notice("connected", self.settings.port))

    def _drop(self) -> None:
        with self._port_lock:                 # waits for a write under way
            was_connected = self.connected.is_set()
            self.connected.clear()
            port, self._serial = self._serial, None
            if port is not None:
                try:
                    port.close()
                except (serial.SerialException, OSError):
                    pass
        if was_connected:
            self._notify(Notice("disconnected", self.settings.port))

    def _timed_out(self) -> None:
        self._timeouts += 1
        if self._timeouts >= self.settings.stale_after_timeouts:
            log.info("laser link %s: %d requests unanswered, reopening it",
                     self.settings.port, self._timeouts)
            self._timeouts = 0
            self._stale.set()
