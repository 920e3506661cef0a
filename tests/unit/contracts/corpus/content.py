"""Contract corpus cases for content: broken ones register in BROKEN, correct ones in CORRECT."""

from __future__ import annotations

from .broken import broken
from .correct import correct

__all__ = ["broken", "correct"]
