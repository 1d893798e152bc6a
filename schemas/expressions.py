"""A small, safe expression language for rule constraints and `--filter` (never Python's eval).

Grammar (lowest precedence first):
    expr  := or
    or    := and ('or' and)*
    and   := not ('and' not)*
    not   := 'not' not | cmp
    cmp   := sum [('=='|'!='|'<'|'<='|'>'|'>=') sum | ['not'] 'in' sum]
    sum   := term (('+'|'-') term)*
    term  := unary (('*'|'/'|'//'|'%') unary)*
    unary := '-' unary | atom
    atom  := NUMBER | STRING | NAME ('.' NAME)* | 'true' | 'false' | '(' expr ')' | '[' [expr (',' expr)*] ']'
"""
from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping

from gconv.errors import ExpressionError

_TOKEN_RE = re.compile(
    r"\s*(?:(?P<number>\d+(?:\.\d+)?)|(?P<string>'[^']*'|\"[^\"]*\")|(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    r"|(?P<op>==|!=|<=|>=|//|[<>+\-*/%()\[\],]))"
)
_KEYWORDS = {"and", "or", "not", "in", "true", "false"}
_COMPARISONS = {"==", "!=", "<", "<=", ">", ">="}


@dataclass(frozen=True)
class Token:
    kind: str  # number | string | name | op | keyword | end
    text: str
    position: int


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = _TOKEN_RE.match(text, position)
        if match is None or match.end() == position:
            start = position + (len(text[position:]) - len(text[position:].lstrip()))
            raise ExpressionError(f"unexpected character {text[start]!r}", text, start)
        kind = match.lastgroup or "op"
        value = match.group(kind)
        start = match.start(kind)
        if kind == "name" and value in _KEYWORDS:
            kind = "keyword"
        tokens.append(Token(kind, value, start))
        position = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


# --- AST -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Node:
    position: int


@dataclass(frozen=True)
class Literal(Node):
    value: Any


@dataclass(frozen=True)
class Name(Node):
    name: str


@dataclass(frozen=True)
class ListNode(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Unary(Node):
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    op: str
    left: Node
    right: Node


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0

    def peek(self) -> Token:
        return self.tokens[self.index]

    def take(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def accept(self, text: str) -> Token | None:
        token = self.peek()
        if token.kind in ("op", "keyword") and token.text == text:
            return self.take()
        return None

    def fail(self, expected: str) -> ExpressionError:
        token = self.peek()
        found = "end of expression" if token.kind == "end" else repr(token.text)
        return ExpressionError(f"expected {expected}, found {found}", self.text, token.position)

    def parse(self) -> Node:
        if self.peek().kind == "end":
            raise self.fail("an expression")
        node = self.parse_or()
        if self.peek().kind != "end":
            raise self.fail("an operator or the end of the expression")
        return node

    def parse_or(self) -> Node:
        node = self.parse_and()
        while (token := self.accept("or")) is not None:
            node = Binary(token.position, "or", node, self.parse_and())
        return node

    def parse_and(self) -> Node:
        node = self.parse_not()
        while (token := self.accept("and")) is not None:
            node = Binary(token.position, "and", node, self.parse_not())
        return node

    def parse_not(self) -> Node:
        token = self.peek()
        if token.kind == "keyword" and token.text == "not":
            self.take()
            return Unary(token.position, "not", self.parse_not())
        return self.parse_comparison()

    def parse_comparison(self) -> Node:
        node = self.parse_sum()
        token = self.peek()
        if token.kind == "op" and token.text in _COMPARISONS:
            self.take()
            return Binary(token.position, token.text, node, self.parse_sum())
        if token.kind == "keyword" and token.text == "in":
            self.take()
            return Binary(token.position, "in", node, self.parse_sum())
        if token.kind == "keyword" and token.text == "not" and self.tokens[self.index + 1].text == "in":
            self.take()
            self.take()
            return Binary(token.position, "not in", node, self.parse_sum())
        return node

    def parse_sum(self) -> Node:
        node = self.parse_term()
        while self.peek().kind == "op" and self.peek().text in ("+", "-"):
            token = self.take()
            node = Binary(token.position, token.text, node, self.parse_term())
        return node

    def parse_term(self) -> Node:
        node = self.parse_unary()
        while self.peek().kind == "op" and self.peek().text in ("*", "/", "//", "%"):
            token = self.take()
            node = Binary(token.position, token.text, node, self.parse_unary())
        return node

    def parse_unary(self) -> Node:
        token = self.peek()
        if token.kind == "op" and token.text == "-":
            self.take()
            return Unary(token.position, "-", self.parse_unary())
        return self.parse_atom()

    def parse_atom(self) -> Node:
        token = self.peek()
        if token.kind == "number":
            self.take()
            return Literal(token.position, float(token.text) if "." in token.text else int(token.text))
        if token.kind == "string":
            self.take()
            return Literal(token.position, token.text[1:-1])
        if token.kind == "keyword" and token.text in ("true", "false"):
            self.take()
            return Literal(token.position, token.text == "true")
        if token.kind == "name":
            self.take()
            return Name(token.position, token.text)
        if self.accept("("):
            node = self.parse_or()
            if not self.accept(")"):
                raise self.fail("')'")
            return node
        if self.accept("["):
            items: list[Node] = []
            if not self.accept("]"):
                items.append(self.parse_or())
                while self.accept(","):
                    items.append(self.parse_or())
                if not self.accept("]"):
                    raise self.fail("',' or ']'")
            return ListNode(token.position, tuple(items))
        raise self.fail("a number, a string, a field name, '(' or '['")


@dataclass(frozen=True)
class Expression:
    """A parsed expression; `names` are the fields it reads. `evaluate` runs a tree of closures built once from the
    syntax tree (_compile), the same checks and messages as walking the tree, without the walk's dispatch per node:
    expansion evaluates a few hundred texts about a million times."""

    text: str
    root: Node
    _run: Callable[[Mapping[str, Any]], Any] = field(compare=False, repr=False)

    @property
    def names(self) -> tuple[str, ...]:
        found: list[Name] = []
        _collect_names(self.root, found)
        return tuple(dict.fromkeys(n.name for n in found))

    def check_names(self, known: Mapping[str, object] | set[str]) -> None:
        """Raise ExpressionError naming the first unknown field, with the known ones as a hint."""
        found: list[Name] = []
        _collect_names(self.root, found)
        for node in found:
            if node.name not in known:
                raise ExpressionError(
                    f"unknown field {node.name!r}; known fields: {', '.join(sorted(known))}", self.text, node.position
                )

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        return self._run(env)

    def matches(self, env: Mapping[str, Any]) -> bool:
        value = self._run(env)
        if value is not True and value is not False:
            raise ExpressionError(f"expression is not a condition: it evaluates to {value!r}", self.text, 0)
        return value


def parse(text: str) -> Expression:
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be a string, got {type(text).__name__}")
    return _parse(text)


@lru_cache(maxsize=4096)
def _parse(text: str) -> Expression:
    """Expressions are immutable: expansion evaluates the same few texts for every instance, parsed once."""
    root = _Parser(text).parse()
    return Expression(text, root, _compile(root, text))


def _collect_names(node: Node, out: list[Name]) -> None:
    if isinstance(node, Name):
        out.append(node)
    elif isinstance(node, Unary):
        _collect_names(node.operand, out)
    elif isinstance(node, Binary):
        _collect_names(node.left, out)
        _collect_names(node.right, out)
    elif isinstance(node, ListNode):
        for item in node.items:
            _collect_names(item, out)


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "list"}.get(type(value), "value")


_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
               "//": operator.floordiv, "%": operator.mod}
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _compile(node: Node, text: str) -> Callable[[Mapping[str, Any]], Any]:
    """node as a function of the environment: each check (and its message, at node's position) of the language."""
    def fail(message: str) -> ExpressionError:
        return ExpressionError(message, text, node.position)

    if isinstance(node, Literal):
        value = node.value
        return lambda env: value
    if isinstance(node, Name):
        name = node.name

        def lookup(env):
            if name not in env:
                raise ExpressionError(f"unknown field {name!r}; known fields: {', '.join(sorted(env))}",
                                      text, node.position)
            return env[name]
        return lookup
    if isinstance(node, ListNode):
        items = tuple(_compile(item, text) for item in node.items)
        return lambda env: [item(env) for item in items]
    if isinstance(node, Unary):
        operand = _compile(node.operand, text)
        if node.op == "not":
            def negation(env):
                value = operand(env)
                if value is not True and value is not False:
                    raise fail(f"'not' needs a condition, got a {_type_name(value)}")
                return not value
            return negation

        def minus(env):
            value = operand(env)
            if not _is_number(value):
                raise fail(f"'-' needs a number, got a {_type_name(value)}")
            return -value
        return minus
    assert isinstance(node, Binary)
    op, left, right = node.op, _compile(node.left, text), _compile(node.right, text)
    if op in ("and", "or"):
        stop = op == "or"  # the left value that decides without the right

        def logical(env):
            a = left(env)
            if a is not True and a is not False:
                raise fail(f"'{op}' needs conditions on both sides, got a {_type_name(a)}")
            if a is stop:
                return a
            b = right(env)
            if b is not True and b is not False:
                raise fail(f"'{op}' needs conditions on both sides, got a {_type_name(b)}")
            return b
        return logical
    if op in ("in", "not in"):
        wanted = op == "in"

        def membership(env):
            a, b = left(env), right(env)
            if not isinstance(b, list):
                raise fail(f"'{op}' needs a list on its right, got a {_type_name(b)}")
            return (a in b) == wanted
        return membership
    if op in ("==", "!="):
        wanted = op == "=="

        def equality(env):
            a, b = left(env), right(env)
            if _is_number(a) != _is_number(b) or (not _is_number(a) and type(a) is not type(b)):
                raise fail(f"cannot compare a {_type_name(a)} with a {_type_name(b)}")
            return (a == b) == wanted
        return equality
    order = _ORDER.get(op)
    arithmetic = _ARITHMETIC.get(op)
    divides = op in ("/", "//", "%")

    def numeric(env):
        a, b = left(env), right(env)
        if not (_is_number(a) and _is_number(b)):
            raise fail(f"'{op}' needs numbers, got a {_type_name(a)} and a {_type_name(b)}")
        if order is not None:
            return order(a, b)
        if divides and b == 0:
            raise fail(f"division by zero in '{op}'")
        return arithmetic(a, b)
    return numeric


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float or (isinstance(value, (int, float)) and not isinstance(value, bool))
