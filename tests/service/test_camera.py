"""Camera adapters: OpenCV on a video file, replay of photos, the synthetic tray; the Pi
camera where picamera2 exists (skipped elsewhere) and its message where it does not."""

import importlib.util
import os
import sys
import types

import cv2
import numpy as np
import pytest

from station.camera import CameraError, OpenCVCamera, Picamera2Camera, ReplayCamera, open_camera
from station.camera.synthetic import SyntheticTray
from station.config import DEFAULTS

HAS_PICAMERA2 = importlib.util.find_spec("picamera2") is not None


def test_opencv_camera_reads_a_video_file(tmp_path):
    path = str(tmp_path / "tray.avi")
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 10, (160, 120))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for shade in (40, 120, 200):
        writer.write(np.full((120, 160, 3), shade, np.uint8))
    writer.release()
    camera = OpenCVCamera(path, (160, 120))
    means = [camera.capture().mean() for _ in range(3)]
    assert means[0] < means[1] < means[2]
    # no frame: the camera is opened again once (a replugged webcam; here the video restarts)
    assert camera.capture().mean() == pytest.approx(means[0], abs=3)
    os.remove(path)                                           # and gone for good: say so
    camera.capture(), camera.capture()
    with pytest.raises(CameraError, match="gave no frame"):
        camera.capture()
    camera.close()


class FakeWebcam:
    """cv2.VideoCapture over a webcam that films 1280x960 uncompressed at `yuyv_fps` only."""

    def __init__(self, device, yuyv_fps):
        self.props, self.yuyv_fps = {cv2.CAP_PROP_FOURCC: cv2.VideoWriter_fourcc(*"YUYV")}, yuyv_fps

    def isOpened(self):
        return True

    def set(self, prop, value):
        if prop == cv2.CAP_PROP_FPS and self.props[cv2.CAP_PROP_FOURCC] != \
                cv2.VideoWriter_fourcc(*"MJPG"):
            value = min(value, self.yuyv_fps)
        self.props[prop] = value
        return True

    def get(self, prop):
        return self.props.get(prop, 0)


@pytest.mark.parametrize("yuyv_fps, mjpeg", [(30, False), (7.5, True)])
def test_opencv_webcam_films_at_the_station_rate_and_keeps_one_frame(monkeypatch, yuyv_fps,
                                                                     mjpeg):
    monkeypatch.setattr(cv2, "VideoCapture", lambda device: FakeWebcam(device, yuyv_fps))
    camera = open_camera({**DEFAULTS["camera"], "source": "opencv", "device": 0,
                          "resolution": [1280, 960], "fps": 20})
    props = camera._capture.props
    assert props[cv2.CAP_PROP_FPS] == 20 and props[cv2.CAP_PROP_BUFFERSIZE] == 1
    assert (props[cv2.CAP_PROP_FRAME_WIDTH], props[cv2.CAP_PROP_FRAME_HEIGHT]) == (1280, 960)
    assert (props[cv2.CAP_PROP_FOURCC] == cv2.VideoWriter_fourcc(*"MJPG")) == mjpeg


def test_opencv_camera_that_is_not_there_says_what_to_do(tmp_path):
    with pytest.raises(CameraError, match=r"camera.device .*no camera or video there"):
        OpenCVCamera(str(tmp_path / "none.mp4"), (640, 480))


def test_replay_moves_to_the_next_photo_for_each_roll(tmp_path):
    for i, shade in enumerate((10, 250)):
        cv2.imwrite(str(tmp_path / f"tray{i}.png"), np.full((60, 80, 3), shade, np.uint8))
    camera = open_camera({**DEFAULTS["camera"], "source": "replay",
                          "files": str(tmp_path / "*.png")})
    assert camera.capture().mean() == 10
    camera.expect("d6", 2, "2 d6")
    assert camera.capture().mean() == 250
    camera.expect("d6", 2, "2 d6")
    assert camera.capture().mean() == 10                      # and round again
    with pytest.raises(CameraError, match="matches no file"):
        ReplayCamera(str(tmp_path / "*.jpg"))


def test_synthetic_tray_films_the_roll_then_holds_still():
    tray = SyntheticTray((320, 240), rng=np.random.default_rng(2), fps=10)
    tray.expect("d6", 3, "3 d6")
    assert [t.kind for t in tray.rendered.truth] == ["d6"] * 3
    frames = [tray.capture() for _ in range(20)]
    assert not np.array_equal(frames[0], frames[5])           # the hand, the tumbling dice
    assert np.array_equal(frames[-1], frames[-2])             # then still
    assert np.array_equal(frames[-1], tray.rendered.image)


def test_synthetic_tray_looked_at_faster_than_it_films_hands_each_frame_again():
    slow = SyntheticTray((160, 120), rng=np.random.default_rng(4), fps=10)
    fast = SyntheticTray((160, 120), rng=np.random.default_rng(4), fps=20)
    for tray in (slow, fast):
        tray.expect("d6", 1, "1 d6")
    film = [slow.capture() for _ in range(len(slow._frames))]
    seen = [fast.capture() for _ in range(2 * len(film))]
    assert all(np.array_equal(f, seen[2 * i]) and np.array_equal(f, seen[2 * i + 1])
               for i, f in enumerate(film))


@pytest.mark.skipif(HAS_PICAMERA2, reason="picamera2 is installed: see the hardware test")
def test_picamera2_absent_says_how_to_get_it():
    with pytest.raises(CameraError, match="python3-picamera2.*--system-site-packages"):
        Picamera2Camera((1280, 960))


class FakePicamera2:
    """The part of picamera2's Picamera2 the station uses; `frames` False: none come."""

    made: list = []

    def __init__(self):
        FakePicamera2.made.append(self)
        self.configured, self.started, self.flushed, self.frames = None, False, False, True

    def create_preview_configuration(self, main=None, controls=None, **rest):
        return {"use_case": "preview", "main": main, "controls": controls, **rest}

    def create_still_configuration(self, **kwargs):
        raise AssertionError("a still configuration for a frame stream")

    def configure(self, configuration):
        self.configured = configuration

    def start(self):
        self.started = True

    def capture_array(self, name, wait=None):
        assert wait is False, "picamera2 waits for ever unless the job is waited on with a timeout"
        camera = self

        class Job:
            def get_result(self, timeout=None):
                assert timeout is not None
                if not camera.frames:
                    raise TimeoutError
                return np.zeros((480, 640, 3), np.uint8)
        return Job()

    def cancel_all_and_flush(self):
        self.flushed = True


@pytest.fixture
def fake_picamera2(monkeypatch):
    FakePicamera2.made = []
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    return FakePicamera2.made


def test_picamera2_films_a_stream_at_the_configured_rate(fake_picamera2):
    """Not picamera2's still configuration (one buffer, exposures of seconds in dim light):
    a stream whose every frame lasts 1/fps, in OpenCV's B, G, R order."""
    camera = open_camera({**DEFAULTS["camera"], "source": "picamera2",
                          "resolution": [640, 480], "fps": 25})
    (pi,) = fake_picamera2
    assert pi.started and pi.configured["main"] == {"size": (640, 480), "format": "RGB888"}
    assert pi.configured["controls"] == {"FrameDurationLimits": (40000, 40000)}
    assert camera.capture().shape == (480, 640, 3)


def test_picamera2_without_frames_says_so_instead_of_hanging(fake_picamera2):
    camera = open_camera({**DEFAULTS["camera"], "source": "picamera2"})
    (pi,) = fake_picamera2
    pi.frames = False                         # the ribbon cable worked loose
    with pytest.raises(CameraError, match="no frame from the Pi camera in 2 s: check the ribbon"):
        camera.capture()
    assert pi.flushed                         # the capture left waiting is dropped


@pytest.mark.skipif(not HAS_PICAMERA2, reason="needs a Raspberry Pi with picamera2")
def test_picamera2_gives_bgr_frames():
    try:
        camera = Picamera2Camera((640, 480))
    except CameraError as error:
        pytest.skip(f"no Pi camera here: {error}")
    frame = camera.capture()
    camera.close()
    assert frame.shape[2] == 3 and frame.dtype == np.uint8
