"""Plain-text tables for the command line."""
from __future__ import annotations


def table(header: list[str], rows: list[list[object]]) -> str:
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for index, row in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if i and _numeric(c) else c.ljust(w)
                               for i, (c, w) in enumerate(zip(row, widths))).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _numeric(cell: str) -> bool:
    """Numbers (and '-' placeholders) align right; text aligns left."""
    try:
        float(cell.split()[0] if cell.strip() else "x")
        return True
    except ValueError:
        return cell == "-"
