"""The contract checker: plain-language diagnostics for a pipeline before any model call.

    from adk_fluent import check_contracts
    report = check_contracts(pipeline)       # the API's entry; here check_tree takes the IR
    print(report.to_text())                  # ✓ / ✗ / ⚠ / ℹ lines (docs/contracts.md)
    report.errors, report.to_json()

It checks every node kind (routes, fan-outs, loops, map_over, fallback, race, gate, timeout,
S and C steps, delegates) for reads before writes, keys set on only some paths, temp: keys
across agents and turns, dead state, channel duplication and data loss, C specs, schema keys,
scopes and types. New checks plug in with `register_check`. Nothing here imports google.adk.
"""

from adk_fluent.analysis.contracts import checks as _checks  # noqa: F401  (registers the built-in checks)
from adk_fluent.analysis.contracts.checker import CheckContext, check_tree, enforce_strict
from adk_fluent.analysis.contracts.registry import (
    CheckSpec,
    register_check,
    registered_checks,
    unregister_check,
)
from adk_fluent.analysis.contracts.report import ContractReport, Issue, Satisfied, Severity

__all__ = [
    "CheckContext",
    "CheckSpec",
    "ContractReport",
    "Issue",
    "Satisfied",
    "Severity",
    "check_tree",
    "enforce_strict",
    "register_check",
    "registered_checks",
    "unregister_check",
]
