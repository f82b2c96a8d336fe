#!/usr/bin/env bash
# The way in on a fresh machine: creates .venv beside this script on first use (and again
# whenever pyproject.toml changes), installs the station into it, then runs
#   ./station.sh ARGS...    the `station` command (e.g. ./station.sh run --simulate)
#   ./station.sh test ...   the whole test suite (extra arguments go to pytest)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
stamp="$venv/.installed"

python=""
for candidate in python3 python3.13 python3.12 python3.11; do
  if command -v "$candidate" >/dev/null &&
     "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    python="$candidate"; break
  fi
done
if [ -z "$python" ]; then
  echo "station.sh: Python 3.11 or newer is needed (apt install python3 python3-venv)" >&2
  exit 2
fi

if [ ! -x "$venv/bin/python" ] || [ "$here/pyproject.toml" -nt "$stamp" ]; then
  echo "station.sh: setting up $venv (first run only)..." >&2
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -e "$here[test]"
  touch "$stamp"
fi

if [ "${1:-}" = "test" ]; then
  shift
  cd "$here"
  exec "$venv/bin/python" -m pytest -n auto "$@"
fi
exec "$venv/bin/station" "$@"
