"""DICE-1: the dice-expression grammar."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.rules.expr import Artillery, Const, Dice, Expr, ExprError, Scatter, Term, parse


@pytest.mark.parametrize("text, canonical", [
    ("D6", "D6"), ("d6", "D6"), ("D3", "D3"), ("3D6", "3D6"), ("2D6+5", "2D6+5"),
    ("3D6-3", "3D6-3"), ("D6x5", "D6x5"), ("D6 * 5", "D6x5"), (" 2d6 + d3 ", "2D6+D3"),
    ("A", "A"), ("a+2", "A+2"), ("S", "S"), ("2D6x2x3", "2D6x6"), ("7", "7"),
])
def test_dice1_expressions_parse_to_canonical_form(text, canonical):
    assert str(parse(text)) == canonical


def test_dice1_structure():
    assert parse("2D6+5") == Expr((Term(1, Dice(2, 6)), Term(1, Const(5))))
    assert parse("3D6-3").terms[1] == Term(-1, Const(3))
    assert parse("D6x5").terms == (Term(1, Dice(1, 6), 5),)
    assert parse("A").has_artillery and parse("S").is_scatter
    assert parse("2D6+D3").d6_count == 3


@pytest.mark.parametrize("text, column, expected", [
    ("", 1, "a dice expression"),
    ("2D6+", 5, "a number, D6, D3, A or S"),
    ("2D8", 3, "6 or 3 after D"),
    ("2D6 5", 5, "+, - or x"),
    ("2D6+q", 5, "unexpected 'q'"),
    ("D6x", 4, "a whole number after x"),
    ("2A", 1, "rolled alone"),
    ("S+2", 1, "on its own"),
    ("Sx2", 1, "cannot be multiplied"),
    ("A+A", 3, "only one artillery die"),
    ("0D6", 1, "at least 1"),
    ("-3+D6", 1, "a number, D6, D3, A or S"),
    ("201D6", 1, "at most 200"),
    ("0*114*88", 7, "multipliers come to 10032"),  # found by hypothesis: 0x10032 is refused
])
def test_dice1_errors_name_the_column_and_what_was_expected(text, column, expected):
    with pytest.raises(ExprError) as error:
        parse(text)
    assert error.value.column == column
    assert f"column {column}" in str(error.value)
    assert expected in str(error.value)


def test_never_eval():
    with pytest.raises(ExprError):
        parse("__import__('os')")


atoms = st.one_of(
    st.builds(Dice, st.integers(1, 12), st.sampled_from([6, 3])),
    st.just(Artillery()),
    st.builds(Const, st.integers(0, 99)),
)


@st.composite
def expressions(draw):
    if draw(st.booleans()) and draw(st.booleans()):
        return Expr((Term(1, Scatter()),))
    terms = draw(st.lists(st.tuples(st.sampled_from([1, -1]), atoms, st.integers(1, 5)),
                          min_size=1, max_size=5))
    seen_a, out = False, []
    for i, (sign, atom, factor) in enumerate(terms):
        if isinstance(atom, Artillery):
            if seen_a:
                continue
            seen_a = True
        out.append(Term(1 if not out else sign, atom, factor))
    return Expr(tuple(out))


@settings(deadline=None)
@given(expressions())
def test_property_round_trip(expression):
    assert parse(str(expression)) == expression


@settings(deadline=None)
@given(st.text(alphabet="dDaAsSx*+-0123456789 q()", max_size=12))
def test_property_parser_either_parses_or_names_a_column(text):
    try:
        expression = parse(text)
    except ExprError as error:
        assert 1 <= error.column <= len(text) + 1
    else:
        assert parse(str(expression)) == expression
