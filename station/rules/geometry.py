"""Table geometry in inches: bearings, bases, templates, deviation and straight-line paths.

Frame: +x to the right, +y toward the tray's (or table's) top edge; bearings in degrees
clockwise from +y (SCAT-2). Warmachine deviation directions are relative to the line of the
attack (WM-DEV-1): direction 1 along it, numbered clockwise seen from above, 60° apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

MM_PER_INCH = 25.4  # MEAS-1: exactly
EPS = 1e-9

Point = tuple[float, float]

#: TMPL-1 round templates (diameters, inches); the teardrop is "about 8 inches" long and has
#: no exact shape in the seeds, so the station does not model it.
WFB_TEMPLATES_IN = {"small": 3.0, "large": 5.0}
#: WM-AOE-1 AOE templates (diameters, inches).
WM_AOE_IN = (3.0, 4.0, 5.0)
#: Warmachine/Hordes round bases (diameters, millimetres).
WM_BASES_MM = {"small": 30.0, "medium": 40.0, "large": 50.0}
WM_BASE_RANK = {"small": 0, "medium": 1, "large": 2}


def mm_to_in(mm: float) -> float:
    return mm / MM_PER_INCH


def in_to_mm(inches: float) -> float:
    return inches * MM_PER_INCH


def bearing_vector(bearing_deg: float, length: float) -> Point:
    """The offset `length` inches along `bearing_deg` (clockwise from +y)."""
    angle = math.radians(bearing_deg)
    return (_clean(length * math.sin(angle)), _clean(length * math.cos(angle)))


def bearing_of(dx: float, dy: float) -> float:
    """The bearing (0 ≤ b < 360, clockwise from +y) of the offset (dx, dy)."""
    return math.degrees(math.atan2(dx, dy)) % 360.0


def bearing_text(bearing_deg: float, decimals: int = 0) -> str:
    """`bearing_deg` written with `decimals` decimals, in 0 ≤ b < 360 as written: 359.6°
    is "0", not "360", at whole degrees."""
    return f"{round(bearing_deg, decimals) % 360.0:.{decimals}f}"


def _clean(value: float) -> float:
    """Snap float noise (1e-16) to the exact values the cases in the tests expect."""
    rounded = round(value, 9)
    return 0.0 if rounded == 0 else rounded


def add(p: Point, q: Point) -> Point:
    return (p[0] + q[0], p[1] + q[1])


def distance(p: Point, q: Point) -> float:
    return math.hypot(q[0] - p[0], q[1] - p[1])


def base_to_base(c1: Point, d1: float, c2: Point, d2: float) -> float:
    """MEAS-1: edge-to-edge distance of two round bases (diameters d1, d2); 0 in contact."""
    return max(0.0, distance(c1, c2) - (d1 + d2) / 2)


def laser_base_to_base_in(reading_mm: float, reference_offset_mm: float = 0.0,
                          target_radius_mm: float = 0.0) -> float:
    """MEAS-2: a laser reading (device reference edge to the spot) as base-to-base inches.

    reference_offset_mm: from the shooter's base edge to the device's reference edge
    (positive when the device sits behind the base edge); target_radius_mm: the target's base
    radius when the spot falls on the model rather than on its base edge."""
    return max(0.0, mm_to_in(reading_mm + reference_offset_mm - target_radius_mm))


def in_base_contact(c1: Point, d1: float, c2: Point, d2: float, tolerance: float = 1e-6
                    ) -> bool:
    """T9A-ENG-1 / MEAS-1: the two bases touch (or overlap)."""
    return distance(c1, c2) <= (d1 + d2) / 2 + tolerance


def move_toward(start: Point, target: Point, length: float) -> Point:
    """MEAS-3: `length` inches from `start` along the line to `target`."""
    return add(start, bearing_vector(bearing_of(target[0] - start[0], target[1] - start[1]),
                                     length))


def under_template(centre: Point, diameter: float, base_centre: Point, base_diameter: float
                   ) -> bool:
    """TMPL-1 / WM-AOE-1: any part of the base is under the round template (touching counts)."""
    return distance(centre, base_centre) <= (diameter + base_diameter) / 2 + EPS


@dataclass(frozen=True)
class Model:
    """A model on the table: its name, base centre and base diameter (inches)."""

    name: str
    centre: Point
    base_in: float

    @classmethod
    def wm(cls, name: str, centre: Point, base: str) -> Model:
        return cls(name, centre, mm_to_in(WM_BASES_MM[base]))


def models_under(centre: Point, diameter: float, models: Iterable[Model]) -> list[Model]:
    """TMPL-1: every model with any part of its base under the template."""
    return [m for m in models if under_template(centre, diameter, m.centre, m.base_in)]


def deviation_bearing(direction: int, attack_bearing_deg: float = 0.0) -> float:
    """WM-DEV-1: the table bearing of deviation direction 1..6 for an attack along
    `attack_bearing_deg` (1 = away from the attacker, 4 = back toward it, clockwise)."""
    if not 1 <= direction <= 6:
        raise ValueError(f"deviation direction {direction}: must be 1..6")
    return (attack_bearing_deg + 60.0 * (direction - 1)) % 360.0


def capped_deviation(rolled_in: float, from_distance_in: float) -> float:
    """WM-DEV-1: the deviation distance, capped at half the distance to the intended point."""
    return min(rolled_in, from_distance_in / 2)


def deviation_offset(direction: int, distance_in: float, attack_bearing_deg: float = 0.0
                     ) -> Point:
    """WM-DEV-1: the deviation vector (already capped by the caller)."""
    return bearing_vector(deviation_bearing(direction, attack_bearing_deg), distance_in)


def throw_points(target: Point, throw_bearing_deg: float, throw_in: float, direction: int,
                 deviation_in: float) -> tuple[Point, Point]:
    """WM-THR-1: (intended point, landing point) of a throw from `target`'s position.

    The intended point is `throw_in` along the chosen bearing; the landing point deviates
    from it by `deviation_in` (capped here at half the throw distance) in `direction`,
    direction 1 pointing along the throw."""
    intended = add(target, bearing_vector(throw_bearing_deg, throw_in))
    capped = capped_deviation(deviation_in, throw_in)
    landing = add(intended, deviation_offset(direction, capped, throw_bearing_deg))
    return intended, landing


@dataclass(frozen=True)
class PathResult:
    """Where a straight move (throw, slam, trample) stopped and what it met on the way."""

    stop: Point
    travelled_in: float
    blocked_by: Model | str | None  # a Model, "obstacle", or None (reached the end)
    passed_over: tuple[Model, ...]  # models it moved over before stopping
    ends_on: tuple[Model, ...]      # models under its base where it stopped


Segment = tuple[Point, Point]


def _stops_sooner(t: float, stop_t: float, blocker: object) -> bool:
    """Contact at `t` along the path stops it before `stop_t`: a move that ends exactly in
    contact (nothing met before) has met what it touches (WM-THR-3's extra die)."""
    return t < stop_t - EPS or (blocker is None and t <= stop_t + EPS)


def straight_path(start: Point, end: Point, mover_base_in: float, models: Sequence[Model],
                  passes_over: Callable[[Model], bool],
                  obstacles: Sequence[Segment] = ()) -> PathResult:
    """WM-THR-2 / WM-TRM-1 / WM-SLAM-1: move a round base in a straight line from `start`
    toward `end`; it moves over models for which `passes_over(model)` is true and stops on
    contact with any other model or an obstacle (a wall as a line segment).

    Models already touching the mover at the start are ignored unless it moves into them.
    """
    length = distance(start, end)
    if length < EPS:
        return PathResult(start, 0.0, None, (), _ends_on(start, mover_base_in, models,
                                                         passes_over))
    u = ((end[0] - start[0]) / length, (end[1] - start[1]) / length)
    radius = mover_base_in / 2
    stop_t, blocker = length, None
    contacts: list[tuple[float, Model]] = []
    for model in models:
        t = _circle_contact(start, u, model.centre, radius + model.base_in / 2)
        if t is None or t > length + EPS:
            continue
        if passes_over(model):
            contacts.append((t, model))
        elif _stops_sooner(t, stop_t, blocker):
            stop_t, blocker = t, model
    for segment in obstacles:
        t = _segment_contact(start, u, segment, radius)
        if t is not None and _stops_sooner(t, stop_t, blocker):
            stop_t, blocker = t, "obstacle"
    stop = (_clean(start[0] + u[0] * stop_t), _clean(start[1] + u[1] * stop_t))
    passed = tuple(m for t, m in sorted(contacts, key=lambda c: c[0]) if t < stop_t - EPS)
    ends = _ends_on(stop, mover_base_in, models, passes_over)
    return PathResult(stop, _clean(stop_t), blocker, passed, ends)


def _ends_on(at: Point, mover_base_in: float, models: Sequence[Model],
             passes_over: Callable[[Model], bool]) -> tuple[Model, ...]:
    return tuple(m for m in models if passes_over(m)
                 and distance(at, m.centre) < (mover_base_in + m.base_in) / 2 - EPS)


def _circle_contact(start: Point, u: Point, centre: Point, reach: float) -> float | None:
    """The first t ≥ 0 at which start + t·u comes within `reach` of `centre`."""
    sx, sy = start[0] - centre[0], start[1] - centre[1]
    b = u[0] * sx + u[1] * sy
    c = sx * sx + sy * sy - reach * reach
    disc = b * b - c
    if disc < 0:
        return None
    root = math.sqrt(disc)
    t0, t1 = -b - root, -b + root
    if t1 <= EPS:
        return None              # behind the mover
    if t0 < -EPS:                # already touching or overlapping at the start
        return 0.0 if b < -EPS else None
    return max(t0, 0.0)


def _segment_contact(start: Point, u: Point, segment: Segment, radius: float) -> float | None:
    """The first t ≥ 0 at which a circle of `radius` moving from `start` along `u` touches
    the segment."""
    (ax, ay), (bx, by) = segment
    seg_len = math.hypot(bx - ax, by - ay)
    best: float | None = None
    if seg_len > EPS:
        dx, dy = (bx - ax) / seg_len, (by - ay) / seg_len
        nx, ny = -dy, dx
        d0 = nx * (start[0] - ax) + ny * (start[1] - ay)
        rate = nx * u[0] + ny * u[1]
        if abs(rate) > EPS:
            for side in (radius, -radius):
                t = (side - d0) / rate
                if t >= -EPS:
                    px, py = start[0] + u[0] * t, start[1] + u[1] * t
                    along = dx * (px - ax) + dy * (py - ay)
                    if -EPS <= along <= seg_len + EPS:
                        best = t if best is None else min(best, t)
    for end in segment:  # the circle can also meet an end of the wall first
        t = _circle_contact(start, u, end, radius)
        if t is not None:
            best = t if best is None else min(best, t)
    return None if best is None else max(best, 0.0)


def falls_from_elevation(ground_under_base_in: float) -> bool:
    """WM-THR-2: a thrown model falls when less than 1" of ground remains under its base."""
    return ground_under_base_in < 1.0
