"""What a ruling gets from a die, whichever way it was rolled (camera, typed, scripted, random).

A `DiceSource` is asked for dice one request at a time, in the order the ruling consumes
them ("2 d6 for the attacker's throw contest"), and answers with `Face`s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

DieKind = Literal["d6", "artillery", "scatter"]

D6_FACES = (1, 2, 3, 4, 5, 6)
ARTILLERY_FACES = (2, 4, 6, 8, 10, "misfire")
SCATTER_FACES = ("arrow", "arrow", "arrow", "arrow", "hit", "hit")  # DICE-1: 4 arrows, 2 HITs


@dataclass(frozen=True)
class Face:
    """One die as it landed.

    value: d6 1..6; artillery 2, 4, 6, 8, 10 or "misfire"; scatter "arrow" or "hit".
    bearing_deg: scatter only, the arrow's bearing, clockwise from the tray's up edge
    (SCAT-2); on a HIT face the small arrow's bearing, or None when the die has none.
    """

    kind: DieKind
    value: int | str
    bearing_deg: float | None = None


class RerollNow(Exception):
    """The players re-roll the roll a ruling offered (`Record.offer_reroll`, DICE-4) instead
    of rolling its next dice; `faces` is that roll as it was first made."""

    def __init__(self, faces: list[Face] | None = None) -> None:
        super().__init__("re-roll before the next dice (DICE-4)")
        self.faces = faces or []


class DiceSource(Protocol):
    def take(self, kind: DieKind, count: int, purpose: str) -> list[Face]:
        """Return `count` dice of `kind`; `purpose` says what they are for (shown to players).

        Raises `DiceExhausted` when the source cannot give them (too few scripted faces,
        too few dice in the tray).
        """
        ...


class DiceExhausted(Exception):
    """A source ran out: the message names what was still needed."""

    def __init__(self, kind: DieKind, count: int, purpose: str, detail: str = "") -> None:
        self.kind, self.count, self.purpose = kind, count, purpose
        words = kind if kind == "d6" else f"{kind} {'die' if count == 1 else 'dice'}"
        context = "; ".join(p for p in (purpose, detail) if p)
        super().__init__(f"still needed: {count} {words}" + (f" ({context})" if context else ""))
