"""Warhammer Fantasy Battles measuring, templates and scatter (RULES.md §2)."""

from __future__ import annotations

from fractions import Fraction

from station.rules import expr as ex
from station.rules import geometry as geo
from station.rules.dice import roll_expr
from station.rules.odds import SCATTER, expr_dist
from station.rules.outcome import Outcome, Record, RuleRefused
from station.rules.registry import EXPR, Param, ParamType, action, choice_type


def _check_scatter(values: dict) -> None:
    if values["distance"].is_scatter:
        raise RuleRefused("SCAT-1: the distance is rolled on numbered dice (2D6, A), not on "
                          "the scatter die")


@action("wfb.scatter", "Scatter: the scatter die and the distance dice (SCAT-1..3)",
        rules=("SCAT-1", "SCAT-2", "SCAT-3"),
        params=(Param("distance", EXPR, "the distance dice the rule names: 2D6, or A for "
                      "war machines", ex.parse("2D6")),),
        dice=("the scatter die (rolled together with the distance dice)",
              "the distance dice, only on an arrow: a HIT ignores them (SCAT-1)"),
        check=_check_scatter)
def scatter(rec: Record, distance: ex.Expr) -> Outcome:
    """SCAT-1 scatter; SCAT-2 the arrow's real bearing; SCAT-3 artillery-die misfire."""
    face = rec.take("scatter", 1, f"scatter direction (rolled with {distance})")[0]
    bearing = face.bearing_deg
    if face.value == "hit":
        rec.step("SCAT-1", "HIT: the object does not move; the distance dice are ignored")
        return rec.outcome("hit", SCATTER.prob("hit"), "a HIT on the scatter die",
                           because=("SCAT-1", "no move"),
                           result="hit", bearing_deg=bearing, distance_in=0, offset_in=[0, 0])
    if bearing is None:
        raise RuleRefused("SCAT-2: the arrow's bearing was not read; roll the scatter die "
                          "again in view of the camera, or type it as arrow@DEG")
    rec.step("SCAT-2", f"arrow bearing {geo.bearing_text(bearing, 1)}° clockwise from the tray's up edge")
    rolled = roll_expr(rec, distance, f"scatter distance {distance}")
    moved = rolled.total
    dist = expr_dist(distance)
    p_arrow = SCATTER.prob("arrow")
    if moved == "misfire":
        rec.step("SCAT-3", "the artillery die shows MISFIRE: the war machine misfires (see "
                           "its misfire chart)")
        return rec.outcome("misfire", p_arrow * dist.prob("misfire"),
                           "an arrow with a MISFIRE on the distance dice", result="misfire",
                           because=("SCAT-3", "the war machine misfires"),
                           bearing_deg=bearing, distance_in=None, offset_in=None)
    assert isinstance(moved, int)
    moved = max(moved, 0)
    offset = geo.bearing_vector(bearing, moved)
    rec.step("SCAT-1", f"{distance} = {rolled.describe()}: moves {moved}\" along {geo.bearing_text(bearing, 1)}°"
                       f" (dx {offset[0]:+.2f}\", dy {offset[1]:+.2f}\"), ignoring anything "
                       "in the way")
    p_moved = dist.prob(lambda v: not isinstance(v, str) and max(v, 0) == moved)
    return rec.outcome("arrow", p_arrow * p_moved, f"an arrow and {moved}\" (any bearing)",
                       result="arrow", because=("SCAT-2", "the arrow's bearing on the table"),
                       bearing_deg=bearing, distance_in=moved, offset_in=list(offset),
                       headline=f"ARROW {moved}\" at {geo.bearing_text(bearing)}°")


def _point(text: str) -> tuple[float, float]:
    x, y = (float(v) for v in text.split(","))
    if not (abs(x) < 1000 and abs(y) < 1000):  # also refuses nan and inf
        raise ValueError("off the table")
    return (x, y)


def _base_mm(text: str) -> float:
    value = float(text)
    if not 0 < value < 1000:  # also refuses nan
        raise ValueError("not a base size")
    return value


POINT = ParamType("point", "X,Y in inches, each within ±1000, e.g. 1.5,-2", _point)
BASE_MM = ParamType("mm", "a base diameter in mm above 0, e.g. 25", _base_mm)
TEMPLATE_SIZES = {**geo.WFB_TEMPLATES_IN, **{f"aoe{int(d)}": d for d in geo.WM_AOE_IN}}


@action("template.covers", "Is a model's base under a round template? (no dice)",
        rules=("TMPL-1", "WM-AOE-1"),
        params=(Param("template", choice_type(*TEMPLATE_SIZES), "small (3\") or large (5\") "
                      "WFB template, or a Warmachine AOE 3/4/5"),
                Param("offset", POINT, "the model's base centre from the template's centre"),
                Param("base_mm", BASE_MM, "the model's base diameter")),
        notes="The teardrop template has no exact shape in the seeds and is not modelled.")
def covers(rec: Record, template: str, offset: tuple[float, float], base_mm: float) -> Outcome:
    """TMPL-1: a model is hit when any part of its base is under the template."""
    diameter = TEMPLATE_SIZES[template]
    base_in = geo.mm_to_in(base_mm)
    hit = geo.under_template((0.0, 0.0), diameter, offset, base_in)
    gap = geo.base_to_base((0.0, 0.0), diameter, offset, base_in)
    rule = "WM-AOE-1" if template.startswith("aoe") else "TMPL-1"
    rec.step(rule, f"{diameter:g}\" template, {base_mm:g} mm base centred "
                   f"{geo.distance((0, 0), offset):.2f}\" away: "
                   + ("under the template (any part counts)" if hit else
                      f"clear by {gap:.2f}\""))
    return rec.outcome("covered" if hit else "clear", Fraction(1), "certain (no dice)",
                       because=(rule, "any part of the base counts"),
                       covered=hit, gap_in=round(gap, 3))
