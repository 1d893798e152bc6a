"""Exception types, one per layer; the CLI formats them once, library code never prints."""
from __future__ import annotations

from dataclasses import dataclass


class GconvError(Exception):
    """Base class of every error gconv raises on purpose."""


@dataclass
class RuleError(GconvError):
    """A rule or arch file is invalid: carries the file, line and key path of the offending value."""

    file: str
    line: int | None
    key_path: str
    message: str
    hint: str | None = None

    def __post_init__(self) -> None:
        super().__init__(self.format())

    def format(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        path = f" {self.key_path}:" if self.key_path else ""
        text = f"{where}:{path} {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def __str__(self) -> str:
        return self.format()


class ExpressionError(GconvError):
    """A filter or constraint expression does not parse, names an unknown field, or cannot be evaluated."""

    def __init__(self, message: str, text: str = "", position: int | None = None):
        self.message = message
        self.text = text
        self.position = position
        super().__init__(self.format())

    def format(self) -> str:
        if self.position is None or not self.text:
            return self.message
        return f"{self.message}\n    {self.text}\n    {' ' * self.position}^"


class GenerationError(GconvError):
    """The generator could not produce a consistent tree (e.g. two rules emit one name differently)."""


class UnsupportedProblemError(GconvError, ValueError):
    """A kernel instance cannot run a problem; the message says why."""
