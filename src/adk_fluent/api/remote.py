"""`RemoteAgent`: an agent served elsewhere, called over A2A, as a step like any other.

    Agent("classifier").outputs("intent")
    >> RemoteAgent("payments", "http://payments:8001/.well-known/agent-card.json",
                   sends=["intent"], receives=["refund_id"])
    >> Agent("responder").instruct("Tell the user about refund {refund_id}.")

Only the declared keys cross: `sends` go with each request, `receives` come back as a state
delta (ADK itself carries state in neither direction). A card published by `adk-fluent serve`
(or `card_from_ir`) declares both, and `RemoteAgent.from_card(card)` reads them from it.

A peer behind authentication takes `headers=`, `bearer_token=` or an `httpx_client_factory=`
(what ADK's RemoteA2aAgent accepts on every release: an httpx client); `retry=` (the middleware's
`retry(...)`) calls again after a transient failure. They travel in the IR as one
`RemoteConnection`, whose repr hides the header values.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from adk_fluent.api.builder import check_name
from adk_fluent.api.expression import Expression
from adk_fluent.arguments import checked_instance, checked_seconds, checked_text
from adk_fluent.errors import BuildError, describe_value, with_article
from adk_fluent.ir.a2a_card import RemoteConnection, card_agent_name, declared_by
from adk_fluent.ir.nodes import RemoteAgentNode
from adk_fluent.ir.state_keys import check_key


class RemoteAgent(Expression):
    """An A2A peer as a step: `RemoteAgent(name, card, sends=[...], receives=[...])`.

    `card` is the peer's agent card: its URL (ADK serves it at
    `<base>/.well-known/agent-card.json`), a file path, the card itself (an a2a-sdk AgentCard or
    its JSON as a dict). A failure (no peer, a card this a2a-sdk cannot read, the peer's task
    failed) is one error event with a `REMOTE_*` code that ends the run; `RemoteAgent(...) //
    Agent("fallback")` falls back instead.

    `headers` go with the card fetch and every request; `bearer_token` is the header
    `Authorization: Bearer <token>`; `httpx_client_factory` makes the httpx.AsyncClient that
    sends them (for mTLS, a proxy, an httpx.Auth); `retry=retry(max_attempts=3, backoff=0.5)`
    calls again, after a wait, when the peer is unreachable or answers 429, 502, 503 or 504."""

    def __init__(
        self,
        name: str,
        card: Any,
        *,
        sends: Iterable[str] | None = None,
        receives: Iterable[str] | None = None,
        timeout: float = 600.0,
        description: str = "",
        headers: Mapping[str, str] | None = None,
        bearer_token: str | None = None,
        httpx_client_factory: Callable[[], Any] | None = None,
        retry: Any = None,
    ) -> None:
        check_name(name)
        super().__init__(name)
        source, card_json, declared = _card_value(name, card)
        self._card, self._card_json = source, card_json
        self._sends = _keys(name, "sends", declared.get("reads") if sends is None else sends)
        self._receives = _keys(
            name, "receives", declared.get("writes") if receives is None else receives
        )
        self._timeout = checked_seconds(
            timeout,
            name,
            "timeout",
            positive=True,
            hint="e.g. RemoteAgent(..., timeout=30); it bounds one request to the peer.",
        )
        checked_instance(
            description,
            name,
            "description",
            str,
            what="a str",
            hint="describe what the remote agent does (a parent's model reads it).",
        )
        self._description = description or str(declared.get("description", ""))
        self._connection = _connection(name, headers, bearer_token, httpx_client_factory, retry)

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
        extra = {} if self._connection is None else {"connection": self._connection}
        return RemoteAgentNode(
            name=self._name,
            card=self._card,
            card_json=self._card_json,
            timeout=self._timeout,
            description=self._description,
            reads_keys=frozenset(self._sends),
            writes_keys=frozenset(self._receives),
            visibility=self._visibility,
            **extra,
        )


# An HTTP header name (RFC 9110 token characters).
_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def _connection(
    agent: str, headers: Any, bearer_token: Any, factory: Any, retry: Any
) -> RemoteConnection | None:
    """The checked credentials and retry policy, or None when none is given (ADK's own client,
    one attempt). Messages name header names, never their values."""
    pairs: list[tuple[str, str]] = []
    if headers is not None:
        checked_instance(
            headers,
            agent,
            "headers",
            Mapping,
            what="a mapping of header names to values",
            hint="e.g. headers={'X-Api-Key': key}; they go with the card fetch and every request.",
        )
        for header, value in headers.items():
            if not isinstance(header, str) or not _HEADER_NAME.match(header):
                # never echoed: a header written as "Authorization: Bearer ..." holds a token
                what = "a header name" if isinstance(header, str) else describe_value(header)
                raise BuildError(
                    f"{what} in headers= is not an HTTP header name",
                    agent=agent,
                    field="headers",
                    hint="header names are letters, digits and -, e.g. 'X-Api-Key'.",
                )
            if not isinstance(value, str) or "\n" in value or "\r" in value:
                raise BuildError(
                    f"the value of the header {header!r} must be one line of text, got "
                    f"{'text with a line break' if isinstance(value, str) else type(value).__name__}",
                    agent=agent,
                    field="headers",
                    hint="read secrets as str, e.g. headers={'X-Api-Key': os.environ['API_KEY']}.",
                )
            pairs.append((header, value))
    if bearer_token is not None:
        checked_text(
            bearer_token,
            agent,
            "bearer_token",
            hint="e.g. bearer_token=os.environ['PAYMENTS_TOKEN']; it is sent as "
            "'Authorization: Bearer <token>'.",
        )
        if any(ch.isspace() for ch in bearer_token.strip()):
            raise BuildError(
                "bearer_token= holds white space inside it",
                agent=agent,
                field="bearer_token",
                hint="give the token alone, without 'Bearer ': it is sent as "
                "'Authorization: Bearer <token>'.",
            )
        if any(header.lower() == "authorization" for header, _ in pairs):
            raise BuildError(
                "both bearer_token= and an Authorization header in headers= are given",
                agent=agent,
                field="bearer_token",
                hint="give one: bearer_token=token, or headers={'Authorization': ...}.",
            )
        pairs.append(("Authorization", f"Bearer {bearer_token.strip()}"))
    if factory is not None and (not callable(factory) or _is_client(factory)):
        raise BuildError(
            # the type only: a misplaced token must not land in a message
            f"httpx_client_factory= takes a function that returns an httpx.AsyncClient, got "
            f"{'a client' if _is_client(factory) else with_article(type(factory).__name__)}",
            agent=agent,
            field="httpx_client_factory",
            hint="e.g. httpx_client_factory=lambda: httpx.AsyncClient(verify='ca.pem'); it is "
            "called once per compiled App.",
        )
    if retry is not None:
        _check_retry(agent, retry)
    if not pairs and factory is None and retry is None:
        return None
    return RemoteConnection(tuple(pairs), factory, retry)


def _is_client(value: Any) -> bool:
    return type(value).__name__ in ("AsyncClient", "Client") and hasattr(value, "headers")


def _check_retry(agent: str, retry: Any) -> None:
    """`retry` is the middleware's Retry, as `retry(...)` makes it, without the options that
    only mean something to a model or a tool call."""
    from adk_fluent.middleware.retry import Retry

    hint = (
        "e.g. RemoteAgent(..., retry=retry(max_attempts=3, backoff=0.5)) with "
        "`from adk_fluent.middleware import retry`."
    )
    checked_instance(retry, agent, "retry", Retry, what="the policy retry(...) makes", hint=hint)
    if tuple(retry.on) != (Exception,):
        raise BuildError(
            "retry(on=...) does not apply to a RemoteAgent: it calls again after the failures "
            "that pass (the peer unreachable, HTTP 429, 502, 503, 504), never after a timeout, "
            "a refusal or a failed task",
            agent=agent,
            field="retry",
            hint=hint,
        )
    if retry.scope is not None:
        raise BuildError(
            "retry(scope=...) does not apply to a RemoteAgent: the policy is its own",
            agent=agent,
            field="retry",
            hint=hint,
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
