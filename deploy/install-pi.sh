#!/usr/bin/env bash
# Install the station as a service on a Raspberry Pi (Raspberry Pi OS Bookworm or Trixie).
#   sudo deploy/install-pi.sh                 from a clone of the repository, on the Pi
#   sudo deploy/install-pi.sh --journal-key   ... and a key for the journal's seals
# What it does (docs/service.md explains each step):
#   1. apt: picamera2 (libcamera's Python bindings are not on PyPI), OpenCV, numpy, lgpio,
#      pygame, spidev (SPI screens), DejaVu Sans (screens in Cyrillic), and the tools for the serial port and the Bluetooth
#      laser tapes;
#   2. a venv in /opt/station/venv made with --system-site-packages, so it sees apt's
#      picamera2, and pip held to apt's numpy (and apt's OpenCV when it is new enough),
#      because picamera2 and simplejpeg are built against apt's numpy;
#   3. a `station` user in the groups that own the camera, GPIO, serial, I2C and SPI;
#   4. with --journal-key, /etc/station/journal.key: a random secret only the station's user and
#      root can read (an existing key is kept), for seals nobody without it can make again;
#      /etc/station/station.toml from station.example.toml (kept if it exists), naming the key;
#   5. the systemd unit, enabled and started.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv=/opt/station/venv
journal_key=""
for arg in "$@"; do
  case "$arg" in
    --journal-key) journal_key=/etc/station/journal.key ;;
    *) echo "unknown option $arg (the one option is --journal-key)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "run me with sudo" >&2; exit 2; }
. "$repo/deploy/install-lib.sh"

apt-get update
apt-get install -y python3-venv python3-pip python3-picamera2 python3-numpy python3-opencv \
  python3-lgpio python3-pygame python3-serial python3-spidev fonts-dejavu-core bluez

python3 -m venv --system-site-packages "$venv"
constraints="$(mktemp)"
python3 - >"$constraints" <<'PY'
import numpy, cv2
print(f"numpy=={numpy.__version__}")                         # never replace apt's numpy
major, minor = (int(v) for v in cv2.__version__.split(".")[:2])
if (major, minor) >= (4, 8):                                   # Trixie: apt's OpenCV will do
    print(f"opencv-python-headless=={cv2.__version__}")
else:                                                          # Bookworm (4.6): a wheel for numpy 1.x
    print("opencv-python-headless==4.9.0.80")
PY
if grep -q "opencv-python-headless==4.9" "$constraints"; then
  # the wheel goes into the venv and shadows apt's older cv2; numpy stays apt's
  "$venv/bin/pip" install -c "$constraints" "$repo[lcd]"
else
  # apt's cv2 is importable as it is: install the station without asking pip for OpenCV
  "$venv/bin/pip" install -c "$constraints" --no-deps "$repo"
  # onnxruntime has wheels for 64-bit ARM only; on 32-bit Pi OS the reader uses cv2.dnn
  engine=""; [ "$(uname -m)" = aarch64 ] && engine=onnxruntime
  "$venv/bin/pip" install -c "$constraints" pyserial gpiozero pillow luma.oled luma.lcd $engine
fi
rm -f "$constraints"
"$venv/bin/python" -c "import picamera2, cv2, numpy; print('picamera2 ok, OpenCV', cv2.__version__, 'numpy', numpy.__version__)"
"$venv/bin/python" -c "from station.vision.networks import engine; print('dice networks run on', engine())"

id station >/dev/null 2>&1 || useradd --system --home /var/lib/station --create-home station
for group in video render input gpio dialout i2c spi tty; do
  getent group "$group" >/dev/null && usermod -aG "$group" station
done

install -d /etc/station
if [ -n "$journal_key" ]; then
  made_key=""; [ -e "$journal_key" ] || made_key=1
  make_journal_key "$journal_key" station
  if [ -n "$made_key" ] && [ -e /var/lib/station/journal.sqlite ]; then
    echo "  A journal kept without it is in /var/lib/station: if it holds entries, the station asks"
    echo "  to take it over once with \`station journal start-keying\` (docs/service.md, \"Seals\")."
  fi
fi
write_config "$repo/station.example.toml" /etc/station/station.toml "$journal_key"

install -m 644 "$repo/deploy/station.service" /etc/systemd/system/station.service
systemctl daemon-reload
systemctl enable --now station
systemctl --no-pager status station || true
