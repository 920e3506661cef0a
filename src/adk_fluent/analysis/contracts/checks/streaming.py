"""Streaming contracts: chunked edges and FanOut joins and merges (docs/streaming.md)."""

from __future__ import annotations
