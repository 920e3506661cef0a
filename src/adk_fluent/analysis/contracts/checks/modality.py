"""Multimodal content contracts: what each agent accepts and produces (docs/contracts.md)."""

from __future__ import annotations
