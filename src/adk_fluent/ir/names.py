"""Names in the tree: what ADK accepts as an agent name, and readable default step names."""

from __future__ import annotations

import re


def is_valid_name(name: object) -> bool:
    """ADK agent names are Python identifiers other than 'user'."""
    return isinstance(name, str) and name.isidentifier() and name != "user"


def slug(*parts: str) -> str:
    """A readable default step name from its parts (`set_tier`, `map_docs`)."""
    text = "_".join(re.sub(r"\W+", "_", p).strip("_") for p in parts if p)
    text = text or "step"
    return text if text[0].isalpha() else f"s_{text}"
