"""Write a set of files all-or-nothing: every file is staged first, then renamed into place."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import CodegenError


def _file_mode(path: Path) -> int:
    """Keep an existing file's mode; new files get the usual 0o666 minus the umask."""
    if path.exists():
        return path.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_files_atomically(files: dict[Path, str]) -> list[Path]:
    """Write all files or none; returns the paths whose content changed.

    Every changed file is first written to a temporary file beside its target; only when all of
    them are staged are they renamed into place, so an error while staging (a full disk, a
    directory where a file should be) leaves every previous file intact.
    """
    staged: list[tuple[Path, Path]] = []
    changed: list[Path] = []
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_file() and path.read_text(encoding="utf-8") == text:
                continue
            if path.exists() and not path.is_file():
                raise IsADirectoryError(21, "it exists and is not a file", str(path))
            fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            staged.append((Path(tmp_name), path))
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            os.chmod(tmp_name, _file_mode(path))
    except BaseException as exc:
        for staged_tmp, _ in staged:
            staged_tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise CodegenError(
                f"Could not write {exc.filename or 'a generated file'}: {exc.strerror or exc}. "
                "No file was changed.",
                hint="check that the output paths are writable files, not directories.",
            ) from None
        raise
    for tmp, path in staged:
        os.replace(tmp, path)
        changed.append(path)
    return changed
