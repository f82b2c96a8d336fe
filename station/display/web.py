"""The screen and the journal in a browser: a phone across the table, a tournament organiser's
laptop. Read-only, on the station's own network.

    http://PI:8080/            the screen as the station shows it now and the latest
                               outcomes and measurements, both following the station
    /entry/ID                  one journal entry redrawn as it was shown, with its rolls'
                               frames and its JSON: the proof when an opponent doubts a roll
    /entry/ID.png .jpg .json   the redrawn screen, the frame a reading was made from, the data

The server runs on a thread of its own (Python's `http.server`, no dependency). Showing a
screen only stores it: it is rendered when a browser first asks for it, once, so a station
nobody browses pays nothing and a roll never waits for a browser. The journal is read through
a connection of its own.
"""

from __future__ import annotations

import html
import io
import json
import logging
import re
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from station.display.render import render
from station.display.screen import Screen

log = logging.getLogger(__name__)

ENTRY = re.compile(r"/entry/(\d{1,18})(\.png|\.jpg|\.json)?")   # ids SQLite can hold
RECENT = 20                          # entries listed on the front page
IDLE_CLOSE_S = 30.0                  # a connection that sends nothing this long is closed: each
                                     # holds a thread, and a browser asks again when it wants
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>
<style>body{{background:#121418;color:#eceef2;font:16px sans-serif;margin:1em auto;max-width:820px;padding:0 8px}}
img{{max-width:100%;height:auto}} a{{color:#fac43c}} td{{padding:2px 10px 2px 0;vertical-align:top}}
.muted{{color:#969eac}}</style></head><body>{body}</body></html>"""


def png_bytes(screen: Screen, size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    render(screen, size).save(out, format="PNG")
    return out.getvalue()


class WebSink:
    """Serves the current screen and the journal over HTTP (display sink `web`)."""

    name = "web"
    live = False            # a browser follows the screens, not the camera's frame rate

    def __init__(self, host: str, port: int, journal_path: str | Path,
                 size: tuple[int, int] = (800, 480)) -> None:
        from station.display.sinks import SinkUnavailable
        from station.journal import Journal, JournalError
        self.size = size
        # show() (the station's loop) takes only _lock, held for an assignment: browsers,
        # whatever they ask, never hold up a roll. Journal reads share one connection.
        self._lock = threading.Lock()
        self._journal_lock = threading.Lock()
        self._render_lock = threading.Lock()        # a new screen is drawn once, not per browser
        self._screen = Screen(state="idle", action="The station", prompt="Starting…")
        self._version = 0
        self._png: tuple[int, bytes] | None = None      # (version, PNG) last rendered
        try:
            self._journal = Journal(journal_path, readonly=True)   # browsers only read
        except JournalError as error:
            raise SinkUnavailable(f"the web display cannot read the journal: {error}") from error
        try:
            self._server = ThreadingHTTPServer((host, port), _handler(self))
        except OSError as error:
            self._journal.close()
            raise SinkUnavailable(f"the web display cannot listen on {host}:{port} ({error.strerror}): "
                                  "set display.web_port to a free port") from error
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="web display",
                                        daemon=True)
        self._thread.start()
        log.info("web display on http://%s:%d/", host, self.port)

    def show(self, screen: Screen) -> None:
        with self._lock:
            self._screen, self._version = screen, self._version + 1

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        with self._journal_lock:
            self._journal.close()

    # --- what the handler serves ----------------------------------------------------------

    def version(self) -> int:
        with self._lock:
            return self._version

    def current_png(self) -> bytes:
        with self._render_lock:
            with self._lock:
                screen, version, cached = self._screen, self._version, self._png
            if cached is None or cached[0] != version:
                cached = (version, png_bytes(screen, self.size))
                with self._lock:
                    self._png = cached
            return cached[1]

    def latest(self) -> str:
        """The latest outcomes and measurements, newest first, as table rows."""
        with self._journal_lock:
            self._journal.follow()
            entries = list(self._journal.entries(kind=("outcome", "measurement"), limit=RECENT,
                                                 frames=False))[::-1]
        rows = "".join(
            f'<tr><td><a href="/entry/{e.id}">#{e.id}</a></td><td class="muted">'
            f'{html.escape(e.at[:19].replace("T", " "))} UTC</td><td>{html.escape(e.action)}</td>'
            f"<td>{html.escape(e.headline)}</td></tr>" for e in entries)
        return rows or "<tr><td>nothing yet</td></tr>"

    def front_page(self) -> str:
        body = ('<img id="screen" src="/screen.png?v=0" alt="the station\'s screen">'
                f'<h2>Latest</h2><table id="latest">{self.latest()}</table>'
                # follow the station: poll the version; when it changes, fetch the new picture
                # and the latest entries (a new outcome is journalled before it is shown)
                "<script>let v=-1;setInterval(async()=>{try{const n=await (await fetch("
                "'/screen/version')).text();if(n!==v){v=n;document.getElementById('screen')"
                ".src='/screen.png?v='+n;document.getElementById('latest').innerHTML="
                "await (await fetch('/latest')).text()}}catch(e){}},1000)</script>")
        return PAGE.format(title="The station", body=body)

    def entry(self, entry_id: int, suffix: str | None) -> tuple[str, bytes]:
        """(content type, body) of an entry's page, picture, frame or data; LookupError with
        what is missing."""
        from station.service.replay import screen_of, step_lines
        with self._journal_lock:
            self._journal.follow()
            entry = self._journal.get(entry_id)
            if entry is None:
                raise LookupError(f"no journal entry #{entry_id}: the front page lists the latest")
            readings = self._journal.readings_of(entry_id) if entry.kind == "outcome" else []
            if suffix == ".json":
                return "application/json", json.dumps(entry.to_json(), indent=1).encode()
            if suffix == ".jpg":
                frame = entry.frame or next((r.frame for r in reversed(readings) if r.frame), None)
                if frame is None:
                    raise LookupError(f"entry #{entry_id} has no frame (typed in, or a measurement)")
                return "image/jpeg", frame
            screen = screen_of(self._journal, entry)
        if suffix == ".png":
            return "image/png", png_bytes(screen, self.size)
        frames = "".join(
            f'<p class="muted">reading #{r.id}: {html.escape(r.data.get("purpose", ""))}</p>'
            f'<img src="/entry/{r.id}.jpg" alt="frame of reading #{r.id}">'
            for r in readings if r.frame)
        if entry.frame:
            frames += f'<img src="/entry/{entry.id}.jpg" alt="frame of reading #{entry.id}">'
        lines = "<br>".join(html.escape(line) for line in screen.text_lines())
        steps = "".join(f"<li>{html.escape(line)}</li>" for line in step_lines(entry))
        body = (f'<p><a href="/">&larr; the station</a></p><img src="/entry/{entry.id}.png" '
                f'alt="entry #{entry.id} as shown"><p>{lines}</p>'
                f"{'<h2>Every step</h2><ol>' + steps + '</ol>' if steps else ''}"
                f"{'<h2>As the camera saw it</h2>' + frames if frames else ''}"
                f'<p><a href="/entry/{entry.id}.json">the journal entry as JSON</a></p>')
        return "text/html; charset=utf-8", PAGE.format(title=f"#{entry.id}", body=body).encode()


def _handler(sink: WebSink) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "station"
        timeout = IDLE_CLOSE_S

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            path = self.path.split("?")[0]
            try:
                if path == "/":
                    self._send("text/html; charset=utf-8", sink.front_page().encode())
                elif path == "/screen.png":
                    self._send("image/png", sink.current_png())
                elif path == "/latest":
                    self._send("text/html; charset=utf-8", sink.latest().encode())
                elif path == "/screen/version":
                    self._send("text/plain", str(sink.version()).encode())
                elif match := ENTRY.fullmatch(path):
                    self._send(*sink.entry(int(match[1]), match[2]))
                else:
                    self._error(HTTPStatus.NOT_FOUND, "no such page: / shows the station, "
                                "/entry/ID a journal entry")
            except LookupError as missing:
                self._error(HTTPStatus.NOT_FOUND, str(missing))
            except Exception as error:              # a bad entry must not stop the server
                log.exception("web display: %s", path)
                self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(error).__name__}: {error}")

        def _send(self, content_type: str, body: bytes,
                  status: HTTPStatus = HTTPStatus.OK) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")     # the screen and journal change
            self.end_headers()
            self.wfile.write(body)

        def _error(self, status: HTTPStatus, message: str) -> None:
            self._send("text/plain; charset=utf-8", message.encode(), status)

        def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's name)
            log.debug("web display: " + format, *args)

    return Handler
