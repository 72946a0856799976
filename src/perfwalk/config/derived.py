"""Derived metrics (``[[test.derived]]``): values computed from a repetition's
measured ones by a small arithmetic language, never by Python's ``eval``.

An expression holds numbers (``10e9``, ``0.5``), names, the operators ``+ - * /``
(with the usual precedence; a unary ``-`` or ``+``) and parentheses. A name is a
value of the repetition (``receiver``, a role's ``sink.receiver``, an instrument's
``rusage.user_cpu`` of every run, a derived metric declared before this one) or, with the prefix
``sweep.``, a numeric parameter of the test's sweep (``sweep.size``). A name with
other characters is quoted: ``'BM_copy/64' / 2``.

:func:`parse` checks the text when the configuration is loaded (a syntax error names
the character); :meth:`Expression.evaluate` computes it for one repetition and
raises :class:`Missing` with the reason when it cannot (a name without a value, a
division by zero, a result that is not a finite number): that value is then left
out of the repetition with its reason, and nothing else is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from perfwalk.model import Direction

#: The longest expression (characters) and the deepest nesting of its operations.
MOST_CHARACTERS = 1000
MOST_DEPTH = 64

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.]*)"
    r"|'(?P<single>[^']*)'"
    r'|"(?P<double>[^"]*)"'
    r"|(?P<op>[-+*/()])"
    r")"
)


class ExpressionError(ValueError):
    """An expression that cannot be read: the message names the place."""


class Missing(Exception):
    """A derived value that cannot be computed at a repetition, and why."""


@dataclass(frozen=True)
class _Number:
    value: float


@dataclass(frozen=True)
class _Name:
    name: str


@dataclass(frozen=True)
class _Negated:
    operand: _Node


@dataclass(frozen=True)
class _Operation:
    op: str
    left: _Node
    right: _Node


_Node = _Number | _Name | _Negated | _Operation


@dataclass(frozen=True)
class Expression:
    """A parsed expression: its text, its tree and the names it reads."""

    text: str
    tree: _Node
    names: frozenset[str]

    def evaluate(self, values: Mapping[str, float]) -> float:
        """Its value with ``values`` (names to numbers); :class:`Missing` when a name
        has no value, on a division by zero, or when the result is not finite."""
        result = _value(self.tree, values)
        if not math.isfinite(result):
            raise Missing(f"{self.text} is not a finite number ({result})")
        return result


def parse(text: str) -> Expression:
    """The expression ``text``; :class:`ExpressionError` saying where it is wrong."""
    if len(text) > MOST_CHARACTERS:
        raise ExpressionError(
            f"{len(text)} characters: an expression has {MOST_CHARACTERS} at most"
        )
    tokens = _tokens(text)
    parser = _Parser(text, tokens)
    tree = parser.sum(0)
    if parser.at < len(tokens):
        _kind, token, where = tokens[parser.at]
        raise ExpressionError(f"unexpected {token!r} at character {where + 1}")
    names: set[str] = set()
    stack: list[_Node] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _Name):
            names.add(node.name)
        elif isinstance(node, _Negated):
            stack.append(node.operand)
        elif isinstance(node, _Operation):
            stack += [node.left, node.right]
    return Expression(text, tree, frozenset(names))


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, position) of every token: number, name or op."""
    found: list[tuple[str, str, int]] = []
    at = 0
    end = len(text.rstrip())
    while at < end:
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            start = len(text) - len(text[at:].lstrip())
            quote = text[start] in "'\""
            raise ExpressionError(
                f"a quoted name without its closing {text[start]} at character {start + 1}"
                if quote
                else f"unexpected {text[start]!r} at character {start + 1}: an expression holds "
                "numbers, names, + - * / and parentheses"
            )
        kind = match.lastgroup or ""
        token = match.group(kind)
        if kind in ("single", "double"):
            if not token:
                raise ExpressionError(f"an empty quoted name at character {match.start(kind)}")
            kind = "name"
        found.append((kind, token, match.start(kind)))
        at = match.end()
    return found


class _Parser:
    """Recursive descent: sum := product (("+"|"-") product)*; product := unary
    (("*"|"/") unary)*; unary := ("-"|"+") unary | number | name | "(" sum ")"."""

    def __init__(self, text: str, tokens: list[tuple[str, str, int]]) -> None:
        self.text = text
        self.tokens = tokens
        self.at = 0

    def _peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _deeper(self, depth: int) -> int:
        if depth >= MOST_DEPTH:
            raise ExpressionError(f"nested more than {MOST_DEPTH} deep: write it more simply")
        return depth + 1

    def sum(self, depth: int) -> _Node:
        depth = self._deeper(depth)
        node = self.product(depth)
        while (token := self._peek()) is not None and token[1] in "+-" and token[0] == "op":
            self.at += 1
            node = _Operation(token[1], node, self.product(depth))
            depth = self._deeper(depth)
        return node

    def product(self, depth: int) -> _Node:
        depth = self._deeper(depth)
        node = self.unary(depth)
        while (token := self._peek()) is not None and token[1] in "*/" and token[0] == "op":
            self.at += 1
            node = _Operation(token[1], node, self.unary(depth))
            depth = self._deeper(depth)
        return node

    def unary(self, depth: int) -> _Node:
        depth = self._deeper(depth)
        token = self._peek()
        if token is None:
            raise ExpressionError(
                "the expression ends too early: a number, a name or ( is missing at its end"
            )
        kind, text, where = token
        self.at += 1
        if kind == "number":
            number = float(text)
            if not math.isfinite(number):
                raise ExpressionError(f"{text} at character {where + 1} is beyond a float's range")
            return _Number(number)
        if kind == "name":
            return _Name(text)
        if text in "+-":
            operand = self.unary(depth)
            return _Negated(operand) if text == "-" else operand
        if text == "(":
            inner = self.sum(depth)
            closing = self._peek()
            if closing is None or closing[1] != ")":
                raise ExpressionError(f"the ( at character {where + 1} is never closed")
            self.at += 1
            return inner
        raise ExpressionError(
            f"unexpected {text!r} at character {where + 1}: a number, a name or ( was expected"
        )


def _value(node: _Node, values: Mapping[str, float]) -> float:
    if isinstance(node, _Number):
        return node.value
    if isinstance(node, _Name):
        found = values.get(node.name)
        if found is None:
            raise Missing(f"no value {node.name!r} at this repetition")
        return found
    if isinstance(node, _Negated):
        return -_value(node.operand, values)
    left, right = _value(node.left, values), _value(node.right, values)
    if node.op == "+":
        return left + right
    if node.op == "-":
        return left - right
    if node.op == "*":
        return left * right
    if right == 0:
        raise Missing(f"division by zero ({_shown(node.right)} is 0)")
    return left / right


def _shown(node: _Node, inner: bool = False) -> str:
    """``node`` written out again (an operation inside another in parentheses)."""
    if isinstance(node, _Name):
        return node.name
    if isinstance(node, _Number):
        return f"{node.value:g}"
    if isinstance(node, _Negated):
        return f"-{_shown(node.operand, True)}"
    text = f"{_shown(node.left, True)} {node.op} {_shown(node.right, True)}"
    return f"({text})" if inner else text


@dataclass(frozen=True)
class DerivedConfig:
    """``[[test.derived]]``: a metric computed from the test's values at each repetition."""

    name: str
    expression: str
    unit: str
    direction: Direction | None = None

    @cached_property
    def parsed(self) -> Expression:
        """The expression, parsed (it was checked when the file was loaded)."""
        return parse(self.expression)
