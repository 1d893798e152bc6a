"""YAML loading that remembers the line of every key and list item, so errors can point at them."""
from __future__ import annotations

from typing import Any

import yaml

from gconv.errors import RuleError

KeyPath = tuple[Any, ...]


def format_key_path(path: KeyPath) -> str:
    """('rules', 0, 'tiles', 1, 'block_m') -> 'rules[0].tiles[1].block_m'."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def load_yaml(text: str, filename: str) -> tuple[Any, dict[KeyPath, int]]:
    """Parse YAML safely; return the data and a map from key path to 1-based line number."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {(): 1}
        positions: dict[KeyPath, int] = {(): node.start_mark.line + 1}
        return _construct(loader, node, (), positions, filename), positions
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = error.problem or "invalid YAML"
        context = f" ({error.context})" if error.context else ""
        raise RuleError(filename, line, "", f"YAML syntax error: {problem}{context}",
                        hint="check indentation, colons and brackets on this line and the one before") from None
    finally:
        loader.dispose()


def _construct(loader: yaml.SafeLoader, node: yaml.Node, path: KeyPath, positions: dict[KeyPath, int],
               filename: str) -> Any:
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            key_path = path + (key,)
            if key in result:
                raise RuleError(filename, key_node.start_mark.line + 1, format_key_path(key_path),
                                f"duplicate key {key!r}", hint="each key may appear once in a mapping")
            positions[key_path] = key_node.start_mark.line + 1
            result[key] = _construct(loader, value_node, key_path, positions, filename)
        return result
    if isinstance(node, yaml.SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            positions[path + (index,)] = item.start_mark.line + 1
            items.append(_construct(loader, item, path + (index,), positions, filename))
        return items
    return loader.construct_object(node, deep=True)


def line_of(positions: dict[KeyPath, int], path: KeyPath) -> int | None:
    """Line of the deepest known prefix of path (pydantic locations may point below what YAML spelled out)."""
    for end in range(len(path), -1, -1):
        if path[:end] in positions:
            return positions[path[:end]]
    return None
