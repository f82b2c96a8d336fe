"""Photos the commands cannot use are reported per image, with exit status 2."""

import json
import struct
import zlib
from pathlib import Path

from station.cli import main

PHOTO = str(Path(__file__).parents[1] / "vision" / "data" / "real" / "IMG_20191208_111858.jpg")


def huge_png(path: Path) -> Path:
    """A PNG whose header claims 60000x60000 pixels (OpenCV refuses more than 2^30)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc
    path.write_bytes(b"\x89PNG\r\n\x1a\n"
                     + chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b""))
    return path


def test_read_reports_a_huge_image_and_reads_the_next(tmp_path, capsys):
    huge = str(huge_png(tmp_path / "huge.png"))
    assert main(["read", "--json", huge, PHOTO]) == 2
    refused, read = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert refused["image"] == huge and "more pixels than OpenCV decodes" in refused["error"]
    assert read["image"] == PHOTO and len(read["dice"]) >= 8


def test_calibrate_tray_and_faces_report_a_huge_image(tmp_path, capsys):
    huge = str(huge_png(tmp_path / "huge.png"))
    for command in (["calibrate", "tray", huge, "--out", str(tmp_path / "tray.json")],
                    ["calibrate", "faces", "--kind", "d6", "--face", "6", huge,
                     "--out", str(tmp_path / "faces.npz")]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert "cannot read" in err and f"{huge}: its header claims more pixels" in err
    assert not (tmp_path / "tray.json").exists() and not (tmp_path / "faces.npz").exists()
