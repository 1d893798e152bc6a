"""gconv/files.py: a file is replaced whole or not at all."""
import pytest

from gconv.files import replacing


def test_leaving_the_block_replaces_the_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("old\n")
    with replacing(path, fsync=True) as stream:
        stream.write("new\n")
        assert path.read_text() == "old\n"  # readers see the old file until the rename
    assert path.read_text() == "new\n" and [p.name for p in tmp_path.iterdir()] == ["rows.csv"]


def test_an_error_inside_the_block_leaves_the_file_as_it_was_and_no_temporary(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError, match="disk full"):
        with replacing(path) as stream:
            stream.write("half")
            raise RuntimeError("disk full")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["rows.csv"]


def test_a_new_file_is_created_only_at_the_end(tmp_path):
    path = tmp_path / "problems.csv"
    with replacing(path, newline="") as stream:
        stream.write("a\r\n")
        assert not path.exists()
    assert path.read_bytes() == b"a\r\n"
