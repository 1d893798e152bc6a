"""A progress line on stderr: redrawn in place on a terminal, plain lines in a log."""
from __future__ import annotations

import sys
from typing import TextIO


class ProgressLine:
    """On a TTY each update rewrites one line (carriage return); otherwise each update is its own line, at most
    max_lines of them per run of updates (plus the last), so a log file stays readable."""

    def __init__(self, stream: TextIO | None = None, *, tty: bool | None = None, max_lines: int | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = _isatty(self.stream) if tty is None else tty
        self.max_lines = max_lines
        self._width = 0

    def update(self, text: str, done: int | None = None, total: int | None = None) -> None:
        if self.tty:
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
        elif self._shown(done, total):
            self.stream.write(text + "\n")
        else:
            return
        self.stream.flush()

    def note(self, text: str) -> None:
        """A line of its own (ends a redrawn line first)."""
        self.close()
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
        self._width = 0

    def _shown(self, done: int | None, total: int | None) -> bool:
        if self.max_lines is None or done is None or not total or done >= total:
            return True
        return done * self.max_lines // total != (done - 1) * self.max_lines // total


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def duration(seconds: float | None) -> str:
    """h:mm:ss ('?' when unknown)."""
    if seconds is None:
        return "?"
    seconds = max(0, round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
