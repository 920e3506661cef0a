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


# Why a card from a2a-sdk 1.x fails here: the pinned a2a-sdk (0.3, what every ADK 1.x accepts)
# reads only the 0.3 card format.
A2A_1X_HINT = (
    "it is an A2A 1.x card (published by a2a-sdk>=1.0), which this process's a2a-sdk 0.3 "
    "cannot read: install the peer with adk-fluent[a2a] (a2a-sdk<0.4 on every ADK release), or "
    "give the card itself (an AgentCard, or its 0.3 JSON)"
)


def is_a2a_1x_card(card: Any) -> bool:
    """Whether card JSON is in the A2A 1.0 format (interfaces instead of one url)."""
    return isinstance(card, dict) and (
        "supportedInterfaces" in card or str(card.get("protocolVersion", "")).startswith("1.")
    )


def card_agent_name(text: str) -> str:
    """A card's name as an agent name (ADK names agents by identifiers)."""
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in text.strip()) or "remote"
    return cleaned if not cleaned[0].isdigit() else f"remote_{cleaned}"
