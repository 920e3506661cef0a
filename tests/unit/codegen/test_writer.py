"""Atomic writes: a failure anywhere in the batch leaves every previous file intact."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from adk_fluent_codegen.errors import CodegenError
from adk_fluent_codegen.writer import write_files_atomically


def test_writes_and_reports_changed_files(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "sub" / "b.py"
    assert write_files_atomically({a: "A\n", b: "B\n"}) == [a, b]
    assert (a.read_text(), b.read_text()) == ("A\n", "B\n")
    assert write_files_atomically({a: "A\n", b: "B2\n"}) == [b]
    assert write_files_atomically({a: "A\n", b: "B2\n"}) == []


def test_a_failure_in_the_batch_replaces_nothing(tmp_path: Path) -> None:
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text("old first\n")
    second.write_text("old second\n")
    blocked = tmp_path / "blocked.py"
    blocked.mkdir()  # a directory where a file should go: staging it fails
    with pytest.raises(CodegenError) as error:
        write_files_atomically({first: "new first\n", blocked: "x\n", second: "new second\n"})
    assert "blocked.py" in error.value.message and "No file was changed" in error.value.message
    assert first.read_text() == "old first\n"
    assert second.read_text() == "old second\n"
    assert blocked.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "blocked.py",
        "first.py",
        "second.py",
    ]  # no temp files


def test_new_files_are_readable_and_existing_modes_kept(tmp_path: Path) -> None:
    new = tmp_path / "new.py"
    write_files_atomically({new: "x\n"})
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask  # not mkstemp's private 0o600
    script = tmp_path / "script.sh"
    script.write_text("old\n")
    script.chmod(0o755)
    write_files_atomically({script: "new\n"})
    assert stat.S_IMODE(script.stat().st_mode) == 0o755


def test_writes_utf8_with_unix_newlines(tmp_path: Path) -> None:
    path = tmp_path / "report.md"
    write_files_atomically({path: "google-adk 1.25.0 → 2.13.0\n"})
    assert path.read_bytes() == "google-adk 1.25.0 → 2.13.0\n".encode()
