"""Write a set of files all-or-nothing: every file is staged first, then renamed into place."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_files_atomically(files: dict[Path, str]) -> list[Path]:
    """Write all files or none; returns the paths whose content changed."""
    staged: list[tuple[Path, Path]] = []
    changed: list[Path] = []
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists() and path.read_text(encoding="utf-8") == text:
                continue
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            staged.append((Path(tmp), path))
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    for tmp, path in staged:
        os.replace(tmp, path)
        changed.append(path)
    return changed
