"""Sweep CSVs for the bench tools' tests: rows of one small made-up shape, each row giving the fields it sets."""
from gconv.bench.rows import ROW_FIELDS

# A fwd bf16 G=2 C/G=4 3x3 shape; a row's fields (problem, kernel, status, time_ms, ...) and write_sweep_rows'
# keywords override it.
TINY_SHAPE = dict(direction="fwd", dtype="bf16", N="1", G="2", C="4", K="4", Hi="8", Wi="8", Y="3", X="3",
                  stride_h="1", stride_w="1", pad_h="1", pad_w="1", dil_h="1", dil_w="1", shape_class="C/G<=16",
                  tflops="1", gbs="1", roofline_pct="1", detail="")


def write_sweep_rows(path, rows, fields=("problem", "kernel", "status", "time_ms"), **shape):
    """path as a sweep CSV (bench/rows.py ROW_FIELDS, the sweeps' \\r\\n lines) of rows, each a tuple of the values of
    fields, over TINY_SHAPE with shape's keywords; path, for chaining."""
    base = dict(TINY_SHAPE, **shape)
    lines = [",".join(ROW_FIELDS)] + [",".join(str(dict(base, **dict(zip(fields, row)))[f]) for f in ROW_FIELDS)
                                      for row in rows]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\r\n".join(lines) + "\r\n")
    return path
