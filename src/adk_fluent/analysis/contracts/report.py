"""Contract diagnostics and the report that holds them: text (✓ OK, ✗ ERROR, ⚠ WARNING, ℹ INFO,
as docs/contracts.md shows) and JSON for tools."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
# Advice gets its own mark: a ⚠ on it would read as a warning the user has to act on.
_SYMBOL = {"error": "✗", "warning": "⚠", "info": "ℹ"}
_LABEL = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}


@dataclass(frozen=True)
class Issue:
    """One diagnostic: what is wrong (`subject`, `message`), where (`node`, `path`), about which
    state key, and how to fix it (`hint`). `code` is a stable identifier such as
    "read-before-write"."""

    severity: Severity
    code: str
    node: str
    path: str
    key: str | None
    subject: str
    message: str
    hint: str

    def to_text(self) -> str:
        """The diagnostic as a few indented lines."""
        lines = [f"{_SYMBOL[self.severity]} {self.subject}: {_LABEL[self.severity]}"]
        lines += [f"  {line}" for line in self.message.splitlines() if line]
        lines += [f"  {line}" for line in self.hint.splitlines() if line]
        lines.append(f"  [{self.code}] at {self.path}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The diagnostic as plain data."""
        return asdict(self)


@dataclass(frozen=True)
class Satisfied:
    """A contract that holds: `reader` finds `key`, which `writer` put there on every path."""

    key: str
    writer: str
    reader: str
    reader_path: str

    def to_text(self) -> str:
        """The ✓ line of the text report."""
        return f"✓ {self.writer} → {self.reader}: OK"

    def to_dict(self) -> dict[str, Any]:
        """The contract as plain data."""
        return asdict(self)


class ContractReport:
    """The outcome of a contract check: iterate it for its issues (errors first)."""

    def __init__(
        self,
        root: str,
        issues: tuple[Issue, ...],
        satisfied: tuple[Satisfied, ...] = (),
        adk_version: str = "",
        checks: tuple[str, ...] = (),
    ) -> None:
        self.root = root
        self.issues = issues
        self.satisfied = satisfied
        self.adk_version = adk_version
        self.checks = checks

    def __iter__(self) -> Iterator[Issue]:
        return iter(self.issues)

    def __len__(self) -> int:
        return len(self.issues)

    def __getitem__(self, index: int) -> Issue:
        return self.issues[index]

    def __repr__(self) -> str:
        counts = ", ".join(f"{len(self.by_severity(s))} {s}" for s in SEVERITIES)
        return f"<ContractReport {self.root!r}: {counts}>"

    def by_severity(self, severity: Severity) -> list[Issue]:
        """The issues of one severity."""
        return [issue for issue in self.issues if issue.severity == severity]

    @property
    def errors(self) -> list[Issue]:
        """Issues that will break the run or silently lose data."""
        return self.by_severity("error")

    @property
    def warnings(self) -> list[Issue]:
        """Issues that break some runs (a branch, a timeout, an ADK version)."""
        return self.by_severity("warning")

    @property
    def infos(self) -> list[Issue]:
        """Advice: duplication, dead state, keys from earlier sessions."""
        return self.by_severity("info")

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return not self.errors

    def codes(self) -> list[str]:
        """The issue codes, in report order (handy in tests)."""
        return [issue.code for issue in self.issues]

    def failing(self, strict: bool = False) -> list[Issue]:
        """The issues that fail a check: errors, plus warnings when strict."""
        return [
            i for i in self.issues if i.severity == "error" or (strict and i.severity == "warning")
        ]

    def summary(self) -> str:
        """'2 errors, 1 warning, 0 info' or a clean bill."""
        if not self.issues:
            held = len(self.satisfied)
            holds = "state contracts hold" if held != 1 else "state contract holds"
            return f"✓ no contract issues ({held} {holds})"
        parts = []
        for severity in SEVERITIES:
            count = len(self.by_severity(severity))
            plural = "s" if count != 1 and severity != "info" else ""
            parts.append(f"{count} {severity}{plural}")
        return ", ".join(parts)

    def to_text(self, verbose: bool = False) -> str:
        """The report as text (format in docs/contracts.md); `verbose` also lists the contracts that hold."""
        blocks: list[str] = []
        if verbose:
            blocks += [s.to_text() for s in self.satisfied]
        blocks += [issue.to_text() for issue in self.issues]
        blocks.append(self.summary())
        return "\n\n".join(blocks) + "\n"

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data."""
        return {
            "root": self.root,
            "adk_version": self.adk_version,
            "summary": {s: len(self.by_severity(s)) for s in SEVERITIES},
            "issues": [issue.to_dict() for issue in self.issues],
            "satisfied": [s.to_dict() for s in self.satisfied],
            "checks": list(self.checks),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)
