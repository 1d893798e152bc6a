"""The safe expression language used by constraints, keep clauses and --filter."""
import pytest

from gconv.errors import ExpressionError
from gconv.schemas.expressions import parse

ENV = {"block_m": 128, "block_n": 64, "num_stages": 4, "dtype": "fp16", "pipeline": "tma", "arch.has_tma": True}


@pytest.mark.parametrize("text, expected", [
    ("block_m >= 128 and num_stages == 4", True),
    ("block_m > 128 or dtype == 'fp16'", True),
    ("not (block_m == 128)", False),
    ("dtype in ['fp16', 'bf16']", True),
    ("pipeline not in ['tma', 'persistent']", False),
    ("block_m * block_n / 128 == 64", True),
    ("block_m // 3 == 42 and block_m % 3 == 2", True),
    ("-block_n + 64 == 0", True),
    ("arch.has_tma and pipeline == \"tma\"", True),
    ("2 + 3 * 4 == 14", True),
    ("true and not false", True),
])
def test_evaluates(text, expected):
    assert parse(text).matches(ENV) is expected


def test_names_lists_fields_once():
    assert parse("block_m > 1 and block_m < 9 and arch.has_tma").names == ("block_m", "arch.has_tma")


@pytest.mark.parametrize("text, message", [
    ("block_m >", "expected a number, a string, a field name, '(' or '[', found end of expression\n"
                  "    block_m >\n             ^"),
    ("block_m == 1 )", "expected an operator or the end of the expression, found ')'\n"
                       "    block_m == 1 )\n                 ^"),
    ("block_m = 1", "unexpected character '='\n    block_m = 1\n            ^"),
    ("(block_m == 1", "expected ')', found end of expression\n    (block_m == 1\n                 ^"),
    ("", "expected an expression, found end of expression"),
    ("__import__('os')", "expected an operator or the end of the expression, found '('\n"
                         "    __import__('os')\n              ^"),
])
def test_syntax_errors_point_at_the_problem(text, message):
    with pytest.raises(ExpressionError) as error:
        parse(text)
    assert str(error.value) == message


def test_unknown_field_is_named_with_the_known_ones():
    with pytest.raises(ExpressionError) as error:
        parse("tile_n >= 128").check_names({"block_m": "", "block_n": ""})
    assert str(error.value) == "unknown field 'tile_n'; known fields: block_m, block_n\n    tile_n >= 128\n    ^"


@pytest.mark.parametrize("text, message", [
    ("dtype > 3", "'>' needs numbers, got a string and a number"),
    ("dtype == 3", "cannot compare a string with a number"),
    ("block_m and true", "'and' needs conditions on both sides, got a number"),
    ("block_m in 3", "'in' needs a list on its right, got a number"),
    ("block_m / 0 == 1", "division by zero in '/'"),
])
def test_type_errors_are_reported(text, message):
    with pytest.raises(ExpressionError) as error:
        parse(text).evaluate(ENV)
    assert str(error.value).splitlines()[0] == message


def test_a_non_condition_is_rejected_as_a_filter():
    with pytest.raises(ExpressionError, match="expression is not a condition: it evaluates to 128"):
        parse("block_m").matches(ENV)
