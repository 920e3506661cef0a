"""Where the generator's inputs and outputs live in a checkout: one place for every command."""

from __future__ import annotations

from pathlib import Path

GENERATED_PACKAGE = "adk_fluent_generated"


class Layout:
    """The paths under one checkout root; tests may point single paths elsewhere."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.templates = root / "templates"
        self.generated = root / "generated"
        self.manifests = self.generated / "manifests"
        self.package = self.generated / GENERATED_PACKAGE
        self.diffs = root / "diffs"
        self.acks = self.diffs / "acknowledged.toml"
        self.docs = root / "docs"
        self.compatibility = self.docs / "compatibility.md"

    @property
    def package_templates(self) -> Path:
        """templates/adk_fluent_generated/: the folder only an adk-fluent checkout has."""
        return self.templates / GENERATED_PACKAGE

    def is_checkout(self) -> bool:
        """True when the root holds the generator's templates, so writing generated/, diffs/
        and docs/compatibility.md there is what the user meant."""
        return self.package_templates.is_dir()
