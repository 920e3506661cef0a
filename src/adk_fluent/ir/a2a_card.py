"""What adk-fluent writes on an A2A agent card, and reads back: the card extension that
declares the state keys a served pipeline reads (a caller sends them) and writes (it sends them
back when asked). Both ends use it: `remote.cards` writes it, `RemoteAgent.from_card` reads it.
Also the two values both ends share: the key of adk-fluent's entry in a request's metadata, and
`RemoteConnection`, the credentials and retry policy a RemoteAgent node carries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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
    "cannot read: install the peer with adk-fluent's a2a extra (a2a-sdk<0.4 on every ADK "
    "release), or give the card itself (an AgentCard, or its 0.3 JSON)"
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


# What a RemoteAgent asks a served adk-fluent pipeline for, in the A2A request's metadata:
# {"adk_fluent": {"state": {key: value, ...}, "receives": [key, ...]}}. The server sends back
# the keys of `receives` that its card lists under writes, and nothing else.
REQUEST_KEY = "adk_fluent"


@dataclass(frozen=True)
class RemoteConnection:
    """How a RemoteAgent reaches its peer beyond the card URL: HTTP headers sent with the card
    fetch and with every request (a bearer token is one), the factory of the httpx client that
    sends them, and the retry policy for transient failures (an adk_fluent.middleware `Retry`:
    `max_attempts`, `delay(failed)`, `sleep`).

    Header values are credentials: the repr names the headers and hides their values, so a
    printed tree, an error message or a log line of the IR carries no token."""

    headers: tuple[tuple[str, str], ...] = ()
    httpx_client_factory: Callable[[], Any] | None = None
    retry: Any = None

    def __repr__(self) -> str:
        shown = [f"headers=[{', '.join(repr(name) for name, _ in self.headers)}] (values hidden)"]
        if self.httpx_client_factory is not None:
            factory = getattr(self.httpx_client_factory, "__qualname__", None)
            shown.append(f"httpx_client_factory={factory or type(self.httpx_client_factory)}")
        if self.retry is not None:
            shown.append(f"retry=max_attempts {getattr(self.retry, 'max_attempts', '?')}")
        return f"RemoteConnection({', '.join(shown)})"
