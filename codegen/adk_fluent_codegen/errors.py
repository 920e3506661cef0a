"""The generator's error and warning types for user-facing problems."""

from __future__ import annotations


class CodegenError(Exception):
    """A problem the person running the generator can fix; printed as one paragraph, no traceback."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message if hint is None else f"{message}\nHint: {hint}")


class CodegenWarning(UserWarning):
    """Something the generator could not do but that need not stop it; the CLI prints one line."""
