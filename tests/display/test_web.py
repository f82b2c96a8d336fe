"""The web display: the current screen and the journal served over HTTP on a free port."""

import json
import urllib.error
import urllib.request

import cv2
import numpy as np
import pytest

from station.display.screen import Screen
from station.display.sinks import SinkUnavailable
from station.display.web import WebSink
from station.journal import Journal


def get(sink: WebSink, path: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{sink.port}{path}", timeout=10) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def jpeg(colour) -> bytes:
    frame = np.full((120, 160, 3), colour, np.uint8)
    return cv2.imencode(".jpg", frame)[1].tobytes()


@pytest.fixture
def station(tmp_path):
    """A journal with a throw read from two rolls and a measurement, and a web sink on it."""
    journal = Journal(tmp_path / "j.sqlite")
    die = {"kind": "d6", "center": [80.0, 60.0], "colour": "red", "flags": []}
    first = journal.add_reading("Warpwolf throw", "6", {"purpose": "1 d6: attacker's throw contest"},
                                [{**die, "value": 6}], jpeg((0, 0, 200)))
    second = journal.add_reading("Warpwolf throw", "2", {"purpose": "1 d6: target's throw contest"},
                                 [{**die, "value": 2}], jpeg((0, 200, 0)))
    outcome = journal.add_outcome("Warpwolf throw", "THROWN",
                                  {"action": "wm.throw", "outcome": "thrown", "rules": ["WM-THR-1"],
                                   "steps": [{"rule": "WM-THR-1", "text": "6+11 = 17 > 2+9 = 11"}]},
                                  [first, second])
    measured = journal.add_measurement("Warpwolf throw", "7.1 in",
                                       {"device": "glm", "raw_mm": 180.2, "mm": 180.2})
    sink = WebSink("127.0.0.1", 0, journal.path)
    yield sink, {"first": first, "second": second, "outcome": outcome, "measured": measured}
    sink.close()
    journal.close()


def test_the_front_page_follows_the_screen_and_lists_the_journal(station):
    sink, ids = station
    status, kind, page = get(sink, "/")
    assert status == 200 and kind.startswith("text/html")
    page = page.decode()
    assert page.index(f'href="/entry/{ids["measured"]}"') < page.index(f'href="/entry/{ids["outcome"]}"')
    assert f'href="/entry/{ids["first"]}"' not in page          # readings belong to their outcome
    assert get(sink, "/latest")[2].decode() in page              # what the page refreshes
    before, starting = get(sink, "/screen/version")[2], get(sink, "/screen.png")[2]
    sink.show(Screen(state="resolved", action="Roll 2D6", headline="7"))
    after = get(sink, "/screen/version")[2]
    assert int(after) == int(before) + 1
    status, kind, png = get(sink, "/screen.png")
    assert status == 200 and kind == "image/png" and png[:4] == b"\x89PNG" and png != starting
    assert get(sink, "/screen.png")[2] == png                  # the same until the next screen
    shown = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape == (480, 800, 3)


def test_an_entry_is_redrawn_with_every_roll_its_frames_and_its_data(station):
    sink, ids = station
    status, _, page = get(sink, f"/entry/{ids['outcome']}")
    page = page.decode()
    assert status == 200 and "THROWN" in page
    assert "dice, 1 d6: attacker&#x27;s throw contest: 6(red)" in page
    assert f'src="/entry/{ids["first"]}.jpg"' in page and f'src="/entry/{ids["second"]}.jpg"' in page
    status, kind, frame = get(sink, f"/entry/{ids['first']}.jpg")
    assert status == 200 and kind == "image/jpeg" and frame == jpeg((0, 0, 200))
    assert get(sink, f"/entry/{ids['outcome']}.jpg")[2] == jpeg((0, 200, 0))   # the last roll's
    status, kind, png = get(sink, f"/entry/{ids['outcome']}.png")
    assert status == 200 and png[:4] == b"\x89PNG"
    status, kind, data = get(sink, f"/entry/{ids['outcome']}.json")
    assert json.loads(data)["data"]["outcome"] == "thrown"


def test_missing_pages_say_what_is_missing(station):
    sink, ids = station
    status, _, text = get(sink, "/entry/999")
    assert status == 404 and b"no journal entry #999" in text
    status, _, text = get(sink, f"/entry/{ids['measured']}.jpg")
    assert status == 404 and b"has no frame" in text
    assert get(sink, "/etc/passwd")[0] == 404
    assert get(sink, "/")[0] == 200                                  # still serving


def test_entry_ids_beyond_sqlite_are_not_found(station):
    sink, _ = station
    for entry in ("9223372036854775808", "9" * 5000):
        status, _, _ = get(sink, f"/entry/{entry}")
        assert status == 404


def test_the_web_display_never_writes_the_journal(station):
    sink, _ = station
    with pytest.raises(Exception, match="readonly"):
        sink._journal.add_measurement("x", "1 in", {})


def test_browsers_reading_the_journal_never_hold_up_the_station(station, monkeypatch):
    import threading
    sink, ids = station
    reading, release = threading.Event(), threading.Event()
    get_entry = sink._journal.get

    def slow_get(entry_id):                  # a browser's query on a busy SD card
        reading.set()
        release.wait(10)
        return get_entry(entry_id)

    monkeypatch.setattr(sink._journal, "get", slow_get)
    browser = threading.Thread(target=sink.entry, args=(ids["outcome"], ".json"))
    browser.start()
    assert reading.wait(10)
    station_loop = threading.Thread(target=sink.show, args=(Screen(state="idle", action="x"),))
    station_loop.start()
    station_loop.join(2)
    held_up = station_loop.is_alive()
    release.set()
    browser.join()
    station_loop.join()
    assert not held_up


def test_a_new_screen_is_drawn_once_for_all_browsers(station, monkeypatch):
    import threading
    import time
    from station.display import web
    sink, _ = station
    drawn = []
    monkeypatch.setattr(web, "png_bytes", lambda screen, size: (drawn.append(screen),
                                                                 time.sleep(0.05), b"png")[2])
    sink.show(Screen(state="idle", action="new"))
    browsers = [threading.Thread(target=sink.current_png) for _ in range(10)]
    for browser in browsers:
        browser.start()
    for browser in browsers:
        browser.join()
    assert len(drawn) == 1


def test_a_connection_that_sends_nothing_is_closed(tmp_path, monkeypatch):
    import socket
    from station.display import web
    monkeypatch.setattr(web, "IDLE_CLOSE_S", 0.3)
    journal = Journal(tmp_path / "j.sqlite")
    sink = WebSink("127.0.0.1", 0, journal.path)
    try:
        with socket.create_connection(("127.0.0.1", sink.port), timeout=5) as idle:
            assert idle.recv(1) == b""               # closed by the server, not left waiting
    finally:
        sink.close()
        journal.close()


def test_the_web_display_follows_a_journal_made_again(tmp_path):
    """The review's case: once the journal file was replaced, every page answered 500."""
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    first = journal.add_measurement("Measure", "1.0 in", {"mm": 25.4})
    sink = WebSink("127.0.0.1", 0, path)
    try:
        assert get(sink, f"/entry/{first}.json")[0] == 200
        for gone in tmp_path.glob("j.sqlite*"):
            gone.unlink()
        again = journal.add_measurement("Measure", "2.0 in", {"mm": 50.8})
        status, _, page = get(sink, "/latest")
        assert status == 200 and f'href="/entry/{again}"' in page.decode()
        assert get(sink, f"/entry/{again}.json")[0] == 200
    finally:
        sink.close()
        journal.close()


def test_a_port_in_use_is_said_with_the_fix(station, tmp_path):
    sink, _ = station
    with pytest.raises(SinkUnavailable, match="web_port"):
        WebSink("127.0.0.1", sink.port, sink._journal.path)


def test_an_entry_page_lists_every_step_the_screen_had_no_room_for(tmp_path):
    """A trample's screen shows three of its eight steps: the damage to its second and third
    models was on no page but the JSON."""
    steps = [{"rule": "WM-TRM-1", "text": f"model {n}: damage 3+3+STR 12 = {15 + n}"}
             for n in (1, 2, 3)] + [{"rule": "WM-RNG-2", "text": f"trample attack on model {n}"}
                                    for n in (1, 2, 3)]
    with Journal(tmp_path / "j.sqlite") as journal:
        trample = journal.add_outcome("Trample", "TRAMPLE: 3 of 3 hit",
                                      {"action": "wm.trample", "outcome": "3", "steps": steps,
                                       "rules": ["WM-TRM-1", "WM-RNG-2"]}, [])
    sink = WebSink("127.0.0.1", 0, journal.path)
    try:
        page = get(sink, f"/entry/{trample}")[2].decode()
    finally:
        sink.close()
    listed = page[page.index("Every step"):]
    assert all(f"{step['rule']}  {step['text']}" in listed for step in steps), listed
