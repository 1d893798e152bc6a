"""--choice NAME=VALUE on the command line: a template choice of generator/render.py (CHOICES) for a twin.

Imports neither torch nor Triton: bench/mma_loop.py runs in spawned workers whose Triton must be imported only after
ci/compile_check.py has dropped an inherited TRITON_INTERPRET (Triton fixes the kind of its library functions at
import time).
"""
from __future__ import annotations

from gconv.generator.render import CHOICES


def parse_choice(text: str) -> dict[str, str]:
    """'choice=value' -> {choice: value}, a template choice of generator/render.py."""
    key, _, value = text.partition("=")
    if key not in CHOICES or value not in CHOICES[key]:
        known = "; ".join(f"{k}: {', '.join(v)}" for k, v in CHOICES.items())
        raise SystemExit(f"--choice wants choice=value with a template choice ({known}), got {text!r}")
    return {key: value}
