"""What adk-fluent writes on an A2A agent card, and reads back: the card extension that
declares the state keys a served pipeline reads (a caller sends them) and writes (it sends them
back). Both ends use it: `remote.cards` writes it, `RemoteAgent.from_card` reads it."""

from __future__ import annotations

from typing import Any

# AgentCard.capabilities.extensions[] entry with this uri: params = {"reads": [...], "writes": [...]}
STATE_EXTENSION_URI = "urn:adk-fluent:a2a:state-keys:v1"


def declared_by(card: dict[str, Any]) -> dict[str, Any]:
    """What a card (as JSON) says about its agent: name, description, and the state keys it
    reads and writes when adk-fluent published it."""
    found: dict[str, Any] = {
        "name": card.get("name", ""),
        "description": card.get("description", ""),
    }
    extensions = (card.get("capabilities") or {}).get("extensions") or []
    for extension in extensions:
        if isinstance(extension, dict) and extension.get("uri") == STATE_EXTENSION_URI:
            params = extension.get("params") or {}
            found["reads"] = [k for k in params.get("reads", []) if isinstance(k, str)]
            found["writes"] = [k for k in params.get("writes", []) if isinstance(k, str)]
    return found
