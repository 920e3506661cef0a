"""`adk-fluent-codegen scan-releases` for real: one release scanned in its own throwaway
environment (uv, PyPI) reproduces its committed scan byte for byte, fields and probe answers,
and leaves nothing behind but the manifest."""

from __future__ import annotations

import tempfile
from pathlib import Path

from adk_fluent_codegen.manifest import manifest_filename
from adk_fluent_codegen.releases import scan_in_throwaway_env

from tests.support.codegen import REPO_ROOT

# A middle release outside the tide sample: the scan of the installed ADK is tested elsewhere.
RELEASE = "1.33.0"


def test_a_throwaway_scan_reproduces_the_committed_manifest(tmp_path: Path) -> None:
    before = set(Path(tempfile.gettempdir()).glob(f"adk-fluent-scan-{RELEASE}-*"))
    summary = scan_in_throwaway_env(RELEASE, REPO_ROOT, tmp_path)
    assert summary.startswith(f"scanned google-adk {RELEASE}: ")
    written = tmp_path / manifest_filename(RELEASE)
    committed = REPO_ROOT / "generated" / "manifests" / manifest_filename(RELEASE)
    assert written.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8")
    assert '"behaviours"' in written.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == [written.name]
    # the environment is gone
    assert set(Path(tempfile.gettempdir()).glob(f"adk-fluent-scan-{RELEASE}-*")) == before
