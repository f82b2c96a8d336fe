"""`station run`: the station service (buttons, camera, laser, display, journal)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from station.cli import UsageError


def register(registry) -> None:
    p = registry.command(
        "run", "run the station: buttons, camera, laser tape, screen and journal", run,
        description="Run the station. With --simulate every device is simulated (synthetic "
                    "tray camera, laser tape on a pseudo-terminal, mock GPIO buttons driven by "
                    "the keys r m n e, R to hold ROLL, q to quit).")
    p.add_argument("--simulate", action="store_true",
                   help="fake hardware, real code paths (no Pi needed)")
    p.add_argument("--config", metavar="FILE", help="TOML settings (see station.example.toml)")
    p.add_argument("--script", metavar="STEPS",
                   help="press buttons in order and exit after the last step has been shown: "
                        "roll,hold,measure,next,reroll,wait:SECONDS")
    p.add_argument("--screens", metavar="DIR", type=Path, help="also write every screen as a PNG")
    p.add_argument("--journal", metavar="PATH", type=Path, help="the journal file")
    p.add_argument("--web", metavar="PORT", type=int,
                   help="also serve the screen and the journal to browsers on this port "
                        "(the web display; host: display.web_host)")
    p.add_argument("--seed", type=int, help="seed of the simulated dice (repeatable demos)")
    p.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def run(args) -> int:
    from station.config import ConfigError, load
    from station.journal import JournalError
    from station.rules import actions as rules
    from station.service.app import Options, Station, parse_script

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        config = load(args.config, known_rulings=rules.ACTIONS)
        options = Options(simulate=args.simulate,
                          script=parse_script(args.script) if args.script is not None else None,
                          screens=args.screens, journal=args.journal, seed=args.seed,
                          web_port=args.web,
                          roll_timeout=60.0 if args.script is not None else None)
        station = Station(config, options)
    except ConfigError as error:
        raise UsageError(f"configuration: {error}") from None
    try:
        status = station.run()
        # the screens are gone: where this run's rolls are, for `station journal ...`
        print(f"station: the journal is {station.journal.path}", file=sys.stderr)
        return status
    except JournalError as error:       # the journal could not be written: said, not a traceback
        print(f"station: error: {error}", file=sys.stderr)
        return 1
