"""Display sinks: PNG files, the terminal, luma's dummy device, pygame's dummy video driver."""

import dataclasses
import io

import numpy as np
import pytest
from PIL import Image

from station.display.sinks import (Display, LumaSink, PngSink, PygameSink, SinkUnavailable,
                                   TerminalSink)


def test_png_sink_numbers_every_screen(tmp_path, screens):
    sink = PngSink(tmp_path, (800, 480))
    sink.show(screens["idle"])
    sink.show(screens["resolved"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0001-idle.png", "0002-resolved.png"]
    assert Image.open(tmp_path / "0002-resolved.png").size == (800, 480)



def test_png_sink_wants_a_folder(tmp_path):
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(SinkUnavailable, match="cannot make the folder .*file"):
        PngSink(tmp_path / "file")


def test_terminal_sink_plain_and_fancy(screens):
    plain = io.StringIO()
    TerminalSink(plain, fancy=False).show(screens["resolved"])
    text = plain.getvalue()
    assert "Impaler spear" in text and "HIT" in text and "chance 58.3%" in text
    assert "4(red) 5(red) ?(white)!cocked" in text and "\x1b" not in text
    fancy = io.StringIO()
    TerminalSink(fancy, fancy=True).show(screens["resolved"])
    out = fancy.getvalue()
    assert out.startswith("\x1b[H") and out.endswith("\x1b[J") and "▀" in out and "HIT" in out and "WM-RNG-2" in out
    # the seal players note, and the dice in words, in a terminal too
    assert "journal #12 · seal 3fa9c2e107bd" in out and "4(red) 5(red) ?(white)!cocked" in out


def test_luma_dummy_device_gets_the_compact_layout(screens):
    pytest.importorskip("luma.core")
    sink = LumaSink("dummy", "i2c", 1, 0x3C, (128, 64))
    sink.show(screens["resolved"])
    image = sink._device.image
    assert image.size == (128, 64) and image.mode == "1"
    lit = np.asarray(image.convert("L")).mean() / 255
    assert 0.05 < lit < 0.6                                          # text drawn, not a blank


@pytest.mark.parametrize("interface, port, bus", [("i2c", -1, ("i2c", 1)), ("spi", -1, ("spi", 0)),
                                                  ("spi", 1, ("spi", 1))])
def test_luma_screen_on_the_pis_usual_bus_unless_told(monkeypatch, interface, port, bus):
    # docs/service.md wires an SPI screen to SPI0 (CE0), an I2C one to bus 1
    import sys
    from types import SimpleNamespace
    luma_serial = pytest.importorskip("luma.core.interface.serial")
    opened = []
    monkeypatch.setattr(luma_serial, "i2c", lambda port, address: opened.append(("i2c", port)))
    monkeypatch.setattr(luma_serial, "spi", lambda port, device: opened.append(("spi", port)))

    class St7735:
        def __init__(self, bus, width, height):
            self.size = (width, height)

    monkeypatch.setitem(sys.modules, "luma.lcd.device", SimpleNamespace(st7735=St7735))
    LumaSink("st7735", interface, port, 0x3C, (160, 128))
    assert opened == [bus]


def test_pygame_sink_on_the_dummy_video_driver(screens, monkeypatch):
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    # Raspberry Pi OS Bookworm's apt pygame (2.1.2) has no image.frombytes (2.1.3)
    monkeypatch.delattr(pygame.image, "frombytes", raising=False)
    monkeypatch.delattr(pygame.image, "tobytes", raising=False)
    sink = PygameSink((800, 480))
    sink.show(screens["resolved"])
    assert sink._surface.get_at((400, 470))[:3] != (0, 0, 0)          # the bottom bar is drawn
    sink.close()


def test_pygame_sink_refuses_the_screen_sdl_falls_back_to(monkeypatch):
    """With no screen it can open (a cable out, a desktop holding it), SDL falls back to its
    offscreen driver unasked: the sink says so instead of drawing on nothing."""
    pygame = pytest.importorskip("pygame")
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    monkeypatch.setattr(pygame.display, "init", lambda: None)
    monkeypatch.setattr(pygame.display, "set_mode", lambda size, flags=0: pygame.Surface((64, 48)))
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "offscreen")
    monkeypatch.setattr(pygame.mouse, "set_visible", lambda visible: None)
    with pytest.raises(SinkUnavailable, match="fell back to its offscreen driver\\): check the "
                                              "HDMI/DSI cable"):
        PygameSink()


def test_a_failing_sink_is_dropped_and_named_on_the_others(screens):
    class Unplugged:
        name = "lcd"

        def show(self, screen):
            raise OSError("I2C device not found")

        def close(self):
            pass

    out = io.StringIO()
    display = Display([Unplugged(), TerminalSink(out, fancy=False)])
    display.show(screens["idle"])
    assert "display lcd: stopped (I2C device not found)" in out.getvalue()
    assert [s.name for s in display.sinks] == ["terminal"]
    display.show(screens["idle"])
    assert out.getvalue().count("display lcd") == 2


def test_live_frames_go_only_to_screens_that_keep_up(tmp_path, screens):
    png = PngSink(tmp_path, (800, 480))
    shown = io.StringIO()
    display = Display([png, TerminalSink(shown, fancy=True)])
    display.show_live(screens["resolved"])
    assert png.count == 0 and "▀" in shown.getvalue()


def test_a_screen_without_a_command_shows_no_empty_brackets(screens):
    """A journal record (`journal show` of a break) has no ruling: "The journal  []" before."""
    record = dataclasses.replace(screens["resolved"], action="The journal", command="")
    assert record.text_lines()[0].startswith("The journal  2/5")
    assert screens["resolved"].text_lines()[0].startswith("Impaler spear  [wm.ranged rat=5 def=13]")
