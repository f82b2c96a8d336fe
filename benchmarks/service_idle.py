"""Benchmark: the service at rest (issue 6 targets: under 5% of a core, under 200 MB).

    PYTHONPATH=. python benchmarks/service_idle.py [--seconds 20] [--rolls 2]

Starts `station run --simulate` as its own process (simulated camera, laser tape on a
pseudo-terminal with the transport's listener thread, mock GPIO buttons, terminal display
to /dev/null), has it serve a few rolls and a measurement first (keys r and m on its
standard input: the dice reader's model is loaded, the journal written), waits for it to
come to rest, then reads its CPU time from /proc/PID/stat over
`--seconds` and its resident memory (VmRSS, and the peak VmHWM) from /proc/PID/status.
Linux only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime + stime


def memory_mb(pid: int) -> dict[str, float]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--rolls", type=int, default=2)
    parser.add_argument("--seconds-per-roll", type=float, default=8.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            [sys.executable, "-m", "station", "run", "--simulate",
             "--journal", str(Path(folder) / "journal.sqlite")],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            time.sleep(args.warmup)
            for key in "r" * args.rolls + "m":
                process.stdin.write(key.encode())
                process.stdin.flush()
                time.sleep(args.seconds_per_roll if key == "r" else 2)
            if process.poll() is not None:
                print(process.stderr.read().decode(), file=sys.stderr)
                raise SystemExit("the station stopped during warm-up")
            start_cpu, start = cpu_seconds(process.pid), time.monotonic()
            time.sleep(args.seconds)
            used = cpu_seconds(process.pid) - start_cpu
            wall = time.monotonic() - start
            memory = memory_mb(process.pid)
        finally:
            process.terminate()
            process.wait(10)
    share = 100 * used / wall
    print(f"station run --simulate, after {args.rolls} rolls and a measurement, at rest for {wall:.0f} s: CPU {share:.2f}% of a core "
          f"(target < 5%), memory {memory['VmRSS']:.0f} MB resident, peak {memory['VmHWM']:.0f} MB "
          f"(target < 200 MB)")
    return 0 if share < 5 and memory["VmHWM"] < 200 else 1


if __name__ == "__main__":
    sys.exit(main())
