"""Print the tier table of a CI run: one row per ADK release and tier (tests, failed, seconds).

Each pytest process appends one JSON line to $ADK_FLUENT_TIER_REPORT (tests/conftest.py); the
seconds are summed over the tier's tests (with several workers, more than the wall time), and
the wall time of each whole run is shown on its own row. `--min-unit N` fails the run when a
release ran fewer than N unit tests (the unit tier's floor: it must not shrink unnoticed).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(path: str, min_unit: int) -> int:
    file = Path(path)
    if not file.exists():
        print(f"no tier report at {path}")
        return 1
    short = []
    print(f"{'google-adk':<12} {'tier':<12} {'tests':>6} {'failed':>7} {'seconds':>9}")
    for line in file.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for tier, row in sorted(record["tiers"].items()):
            print(
                f"{record['adk']:<12} {tier:<12} {row['tests']:>6} {row['failed']:>7} "
                f"{row['seconds']:>9.1f}"
            )
        unit = record["tiers"].get("unit", {}).get("tests", 0)
        # the Workflow target's run (`make test-workflow`) is the behaviour tier alone, and the
        # run of the docs blocks as a user (`make test-as-user`) is those blocks alone
        if unit < min_unit and "/" not in record["adk"]:
            short.append(f"google-adk {record['adk']}: {unit} unit tests, fewer than {min_unit}")
        print(f"{record['adk']:<12} {'(wall)':<12} {'':>6} {'':>7} {record['wall_seconds']:>9.1f}")
    for line in short:
        print(f"FAILED: {line}")
    return 1 if short else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("report", help="the JSON-lines file the test runs appended to")
    parser.add_argument("--min-unit", type=int, default=0, help="fewest unit tests per release")
    args = parser.parse_args()
    raise SystemExit(main(args.report, args.min_unit))
