"""`RemoteAgent`: an agent served elsewhere, called over A2A, as a step like any other.

    Agent("classifier").outputs("intent")
    >> RemoteAgent("payments", "http://payments:8001/.well-known/agent-card.json",
                   sends=["intent"], receives=["refund_id"])
    >> Agent("responder").instruct("Tell the user about refund {refund_id}.")

Only the declared keys cross: `sends` go with each request, `receives` come back as a state
delta (ADK itself carries state in neither direction). A card published by `adk-fluent serve`
(or `card_from_ir`) declares both, and `RemoteAgent.from_card(card)` reads them from it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from adk_fluent.api.builder import check_name
from adk_fluent.api.expression import Expression
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.a2a_card import card_agent_name, declared_by
from adk_fluent.ir.nodes import RemoteAgentNode
from adk_fluent.ir.state_keys import check_key


class RemoteAgent(Expression):
    """An A2A peer as a step: `RemoteAgent(name, card, sends=[...], receives=[...])`.

    `card` is the peer's agent card: its URL (ADK serves it at
    `<base>/.well-known/agent-card.json`), a file path, the card itself (an a2a-sdk AgentCard or
    its JSON as a dict). A failure (no peer, a card this a2a-sdk cannot read, the peer's task
    failed) is one error event with a `REMOTE_*` code that ends the run; `RemoteAgent(...) //
    Agent("fallback")` falls back instead."""

    def __init__(
        self,
        name: str,
        card: Any,
        *,
        sends: Iterable[str] | None = None,
        receives: Iterable[str] | None = None,
        timeout: float = 600.0,
        description: str = "",
    ) -> None:
        check_name(name)
        super().__init__(name)
        source, card_json, declared = _card_value(name, card)
        self._card, self._card_json = source, card_json
        self._sends = _keys(name, "sends", declared.get("reads") if sends is None else sends)
        self._receives = _keys(
            name, "receives", declared.get("writes") if receives is None else receives
        )
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise BuildError(
                f"timeout must be a positive number of seconds, got {describe_value(timeout)}",
                agent=name,
                field="timeout",
                hint="e.g. RemoteAgent(..., timeout=30); it bounds one request to the peer.",
            )
        if not isinstance(description, str):
            raise BuildError(
                f"description must be a str, got {describe_value(description)}",
                agent=name,
                field="description",
                hint="describe what the remote agent does (a parent's model reads it).",
            )
        self._timeout = float(timeout)
        self._description = description or str(declared.get("description", ""))

    @classmethod
    def from_card(cls, card: Any, *, name: str | None = None, **options: Any) -> RemoteAgent:
        """A RemoteAgent named after the card (or `name`), with the keys the card declares."""
        named = card.get("name") if isinstance(card, dict) else getattr(card, "name", None)
        label = name or (named if isinstance(named, str) and named else "remote")
        _, _, declared = _card_value(label, card)  # errors name the card's agent
        if name is None and not declared.get("name"):  # a URL: the card is read at run time
            raise BuildError(
                "RemoteAgent.from_card needs the card itself (an AgentCard, its JSON or a card "
                "file) to read a name from, or name=",
                field="card",
                hint="RemoteAgent.from_card(card) with a card from AgentDirectory, or "
                "RemoteAgent(name, url).",
            )
        card_name = name or card_agent_name(str(declared.get("name", "")))
        return cls(card_name, card, **options)

    @property
    def sends(self) -> tuple[str, ...]:
        """The state keys sent with each request."""
        return self._sends

    @property
    def receives(self) -> tuple[str, ...]:
        """The state keys the peer sends back."""
        return self._receives

    def named(self, name: str) -> RemoteAgent:
        """The same remote agent under another name (names are unique in a tree)."""
        check_name(name)
        return self._copy(_name=name)

    def _build_ir(self) -> RemoteAgentNode:
        return RemoteAgentNode(
            name=self._name,
            card=self._card,
            card_json=self._card_json,
            timeout=self._timeout,
            description=self._description,
            reads_keys=frozenset(self._sends),
            writes_keys=frozenset(self._receives),
            visibility=self._visibility,
        )


def _keys(agent: str, field: str, keys: Any) -> tuple[str, ...]:
    if keys is None:
        return ()
    if isinstance(keys, str) or not isinstance(keys, Iterable):
        raise BuildError(
            f"{field}= takes a list of state keys, got {describe_value(keys)}",
            agent=agent,
            field=field,
            hint=f"e.g. {field}=['intent']: a list, even for one key.",
        )
    found: list[str] = []
    for key in keys:
        check_key(
            key,
            f"RemoteAgent {field}=",
            agent=agent,
            field=field,
            hint="name the state keys that cross the A2A boundary, e.g. ['intent'].",
        )
        if key.startswith("temp:"):
            raise BuildError(
                f"'{key}' cannot cross an A2A boundary: temp: keys live for one invocation "
                "of one process",
                agent=agent,
                field=field,
                hint="use a session key (no prefix) for values another service needs.",
            )
        if key not in found:
            found.append(key)
    return tuple(found)


def _card_value(agent: str, card: Any) -> tuple[str, str | None, dict[str, Any]]:
    """(where the card is read from, the card as JSON text when given as a value, what it
    declares: name, description, reads, writes)."""
    if isinstance(card, str):
        source = card.strip()
        if source.startswith(("http://", "https://")):
            return source, None, {}
        if not source:
            raise BuildError(
                "the agent card is empty",
                agent=agent,
                field="card",
                hint="give the card's URL, e.g. 'http://host:8001/.well-known/agent-card.json'.",
            )
        if not os.path.isfile(source):
            raise BuildError(
                f"the agent card {source!r} is neither an http(s) URL nor a file",
                agent=agent,
                field="card",
                hint="give the peer's card URL (<base>/.well-known/agent-card.json) or the "
                "path of a card JSON file.",
            )
        with open(source, encoding="utf-8") as handle:
            data = _json_object(agent, handle.read(), source)
        return source, None, declared_by(data)
    if isinstance(card, dict):
        data = card
    elif hasattr(card, "model_dump") and hasattr(card, "skills"):  # an a2a-sdk AgentCard
        data = card.model_dump(mode="json", by_alias=True, exclude_none=True)
    else:
        raise BuildError(
            f"card must be a URL, a file path or an agent card, not {describe_value(card)}",
            agent=agent,
            field="card",
            hint="RemoteAgent(name, 'http://host:port/.well-known/agent-card.json').",
        )
    for required in ("name", "url"):
        if not data.get(required):
            raise BuildError(
                f"the agent card has no {required!r}",
                agent=agent,
                field="card",
                hint="an A2A card names the agent and the URL it answers at.",
            )
    try:
        text = json.dumps(data, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise BuildError(
            f"the agent card is not JSON ({error})",
            agent=agent,
            field="card",
            hint="pass an a2a-sdk AgentCard or its JSON as a dict.",
        ) from None
    return str(data["url"]), text, declared_by(data)


def _json_object(agent: str, text: str, source: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise BuildError(
            f"the agent card file {source!r} is not JSON ({error})",
            agent=agent,
            field="card",
            hint="an A2A agent card is a JSON object.",
        ) from None
    if not isinstance(data, dict):
        raise BuildError(
            f"the agent card file {source!r} holds {describe_value(data)}, not a JSON object",
            agent=agent,
            field="card",
            hint="an A2A agent card is a JSON object.",
        )
    return data
