"""gconv.generator: expands rule sets into kernel instances and renders them to Triton sources."""
