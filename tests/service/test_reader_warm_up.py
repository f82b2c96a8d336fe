"""The station loads its dice reader while it starts, so the first roll is read as quickly
as the others; a roll read meanwhile waits for it, and a reader that cannot load does not
stop the station (the read itself reports why)."""

import threading
import time

import numpy as np

import station.vision
from station.service.devices import tray_reader
from station.vision import classifier, special_dice


def test_warm_up_loads_every_network_of_the_reader():
    loaders = [classifier.default_classifier, classifier.default_gate, classifier.default_detail,
               classifier.default_outward, special_dice._model]
    for loader in loaders:
        loader.cache_clear()
    station.vision.warm_up()
    assert [loader.cache_info().currsize for loader in loaders] == [1] * len(loaders)


def test_a_roll_read_while_the_reader_warms_up_waits_for_it(monkeypatch):
    events, started = [], threading.Event()

    def slow_warm_up():
        started.set()
        time.sleep(0.2)
        events.append("warmed up")

    monkeypatch.setattr(station.vision, "warm_up", slow_warm_up)
    read = tray_reader("")
    read.read_tray = lambda frame, calibration, **options: events.append("read") or []
    warming = read.warm_up_in_background()
    assert started.wait(5)
    read(np.zeros((8, 8, 3), np.uint8))
    warming.join(5)
    assert events == ["warmed up", "read"]


def test_a_reader_that_cannot_warm_up_leaves_the_station_running(monkeypatch, caplog):
    def broken():
        raise FileNotFoundError("d6_classifier.onnx is missing")

    monkeypatch.setattr(station.vision, "warm_up", broken)
    read = tray_reader("")
    read.read_tray = lambda frame, calibration, **options: ["a die"]
    read.warm_up_in_background().join(5)
    assert "did not warm up: d6_classifier.onnx is missing" in caplog.text
    assert read(np.zeros((8, 8, 3), np.uint8)) == ["a die"]
