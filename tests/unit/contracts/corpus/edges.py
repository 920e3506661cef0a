"""Contract corpus cases for edges: broken ones register in BROKEN, correct ones in CORRECT."""

from __future__ import annotations

from .broken import broken
from .correct import correct

__all__ = ["broken", "correct"]
