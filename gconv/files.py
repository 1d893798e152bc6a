"""Writing a file so that nothing is ever half-written: the text goes to a temporary file beside it, renamed over it
at the end (one rename: a reader sees the old file or the new one), and removed instead if the writing fails."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def replacing(path: Path, newline: str | None = None, fsync: bool = False) -> Iterator[TextIO]:
    """A text stream on a temporary file beside path (open(..., "w", newline=newline)); leaving the block renames it
    over path (flushed to disk first with fsync), an error inside it removes it and leaves path as it was."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", newline=newline) as stream:
            yield stream
            if fsync:
                stream.flush()
                os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
