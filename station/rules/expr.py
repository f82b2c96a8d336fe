"""Dice expressions (DICE-1): a tokenizer and a recursive-descent parser, never `eval`.

Grammar (case-insensitive, spaces allowed between tokens):

    expr  := term (("+" | "-") term)*
    term  := atom (("x" | "*") NUMBER)*
    atom  := [NUMBER] "D" ("6" | "3")      nD6 sums n dice; D3 is a D6 halved, rounded up
           | "A"                           the artillery die: 2, 4, 6, 8, 10, MISFIRE
           | "S"                           the scatter die (alone: it has no number)
           | NUMBER                        a constant modifier

`str()` of a parsed expression is its canonical form (`2D6+5`, `D6x5`, `3D6-3`) and parses
back to the same expression. Errors are `ExprError`s that name the 1-based column and what
was expected there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MAX_DICE = 200  # per expression: keeps the exact odds small enough to compute at once
MAX_CONSTANT = 10_000


class ExprError(ValueError):
    """A bad dice expression; `column` is 1-based."""

    def __init__(self, text: str, column: int, message: str) -> None:
        self.text, self.column = text, column
        super().__init__(f"bad dice expression {text!r}: column {column}: {message}")


@dataclass(frozen=True)
class Dice:
    """`count` six-sided dice; sides 3 means each die is read as a D3 (DICE-1, DICE-3)."""

    count: int
    sides: Literal[6, 3]

    def __str__(self) -> str:
        return f"{self.count if self.count > 1 else ''}D{self.sides}"


@dataclass(frozen=True)
class Artillery:
    def __str__(self) -> str:
        return "A"


@dataclass(frozen=True)
class Scatter:
    def __str__(self) -> str:
        return "S"


@dataclass(frozen=True)
class Const:
    value: int

    def __str__(self) -> str:
        return str(self.value)


Atom = Dice | Artillery | Scatter | Const


@dataclass(frozen=True)
class Term:
    """An atom with its sign (+1 or -1) and multiplier (the product of its `xk`)."""

    sign: int
    atom: Atom
    factor: int = 1


@dataclass(frozen=True)
class Expr:
    terms: tuple[Term, ...]

    def __str__(self) -> str:
        out = []
        for i, term in enumerate(self.terms):
            if i:  # the grammar has no leading sign: the first term is always positive
                out.append("+" if term.sign > 0 else "-")
            out.append(str(term.atom) + (f"x{term.factor}" if term.factor != 1 else ""))
        return "".join(out)

    @property
    def d6_count(self) -> int:
        """How many six-sided dice one roll of this expression needs (D3s included)."""
        return sum(t.atom.count for t in self.terms if isinstance(t.atom, Dice))

    @property
    def has_artillery(self) -> bool:
        return any(isinstance(t.atom, Artillery) for t in self.terms)

    @property
    def is_scatter(self) -> bool:
        return any(isinstance(t.atom, Scatter) for t in self.terms)


@dataclass(frozen=True)
class _Token:
    kind: str  # NUM, D, A, S, X, PLUS, MINUS, END
    text: str
    column: int


_SYMBOLS = {"d": "D", "a": "A", "s": "S", "x": "X", "*": "X", "×": "X", "+": "PLUS",
            "-": "MINUS", "−": "MINUS"}


def _tokenize(text: str) -> list[_Token]:
    tokens, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch.isdigit():
            start = i
            while i < len(text) and text[i].isdigit():
                i += 1
            tokens.append(_Token("NUM", text[start:i], start + 1))
        elif ch.lower() in _SYMBOLS:
            tokens.append(_Token(_SYMBOLS[ch.lower()], ch, i + 1))
            i += 1
        else:
            raise ExprError(text, i + 1, f"unexpected {ch!r}; expected a number, D6, D3, "
                                         "A, S, +, - or x")
    tokens.append(_Token("END", "", len(text) + 1))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.pos = 0

    @property
    def tok(self) -> _Token:
        return self.tokens[self.pos]

    def fail(self, expected: str, token: _Token | None = None) -> ExprError:
        token = token or self.tok
        found = "the end" if token.kind == "END" else repr(token.text)
        return ExprError(self.text, token.column, f"expected {expected}, found {found}")

    def advance(self) -> _Token:
        token = self.tok
        self.pos += 1
        return token

    def number(self, what: str) -> int:
        if self.tok.kind != "NUM":
            raise self.fail(what)
        token = self.advance()
        value = int(token.text)
        if value > MAX_CONSTANT:
            raise ExprError(self.text, token.column, f"{value} is too large (at most "
                                                     f"{MAX_CONSTANT})")
        return value

    def expr(self) -> Expr:
        if self.tok.kind == "END":
            raise self.fail("a dice expression such as 2D6+5, D3, A or S")
        terms = [self.term(+1)]
        while self.tok.kind in ("PLUS", "MINUS"):
            sign = +1 if self.advance().kind == "PLUS" else -1
            terms.append(self.term(sign))
        if self.tok.kind != "END":
            raise self.fail("+, - or x, or the end of the expression")
        expr = Expr(tuple(terms))
        self.check(expr)
        return expr

    def term(self, sign: int) -> Term:
        start = self.tok
        atom = self.atom()
        factor = 1
        while self.tok.kind == "X":
            self.advance()
            column = self.tok.column
            factor *= self.number("a whole number after x (as in D6x5)")
            if factor > MAX_CONSTANT:  # D6x114x88 would print as D6x10032, which is refused
                raise ExprError(self.text, column, f"the multipliers come to {factor}, too "
                                                   f"large (at most {MAX_CONSTANT})")
        if isinstance(atom, Scatter) and factor != 1:
            raise ExprError(self.text, start.column, "the scatter die S cannot be multiplied")
        return Term(sign, atom, factor)

    def atom(self) -> Atom:
        start = self.tok
        count = None
        if self.tok.kind == "NUM":
            count = self.number("a number")
            if self.tok.kind not in ("D", "A", "S"):
                return Const(count)
        if self.tok.kind == "D":
            self.advance()
            if self.tok.kind != "NUM" or self.tok.text not in ("6", "3"):
                raise self.fail("6 or 3 after D (D6 or D3)")
            sides = int(self.advance().text)
            if count == 0:
                raise ExprError(self.text, start.column, "a dice count must be at least 1")
            return Dice(1 if count is None else count, sides)  # type: ignore[arg-type]
        if self.tok.kind in ("A", "S"):
            letter = self.advance()
            if count is not None:
                name = "artillery die A" if letter.kind == "A" else "scatter die S"
                raise ExprError(self.text, start.column,
                                f"the {name} is rolled alone: write {letter.text.upper()}, "
                                f"not {count}{letter.text.upper()}")
            return Artillery() if letter.kind == "A" else Scatter()
        raise self.fail("a number, D6, D3, A or S")

    def check(self, expr: Expr) -> None:
        if expr.is_scatter and len(expr.terms) > 1:
            column = next(t.column for t in self.tokens if t.kind == "S")
            raise ExprError(self.text, column, "the scatter die S is rolled on its own "
                                               "(no + or -): write S")
        if expr.d6_count > MAX_DICE:
            raise ExprError(self.text, 1, f"{expr.d6_count} dice; at most {MAX_DICE} in one "
                                          "expression")
        if sum(isinstance(t.atom, Artillery) for t in expr.terms) > 1:
            column = [t.column for t in self.tokens if t.kind == "A"][1]
            raise ExprError(self.text, column, "only one artillery die per expression")


def parse(text: str) -> Expr:
    """Parse a dice expression (DICE-1); raises `ExprError` naming the column."""
    return _Parser(text).expr()
