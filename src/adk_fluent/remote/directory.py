"""A directory of A2A agent cards (discovery), resolved when the pipeline is built.

    cards = CardDirectory.from_urls(["http://payments:8001", "http://search:8002"])
    cards = CardDirectory.from_file("agents.yaml")      # entries: {name?, url} or inline cards
    cards.names, cards.card("payments"), cards.find(skill="refund")

Why two classes: this room sits below the builders' room (api), so it cannot make a
`RemoteAgent`. It loads, checks and looks up cards, and hands them out as JSON dicts;
`adk_fluent.api.directory.AgentDirectory` is this class plus `.agent(name) -> RemoteAgent`
(through `RemoteAgent.from_card`, which reads the declared state keys from the card). The
cards are fetched once, here: a pipeline built from the directory carries each card as a value,
so nothing is fetched again when it is compiled, and a card this process's a2a-sdk cannot read
fails at build, naming its URL, instead of at the first call.

A directory file (JSON or YAML) is a list of entries, or `{"agents": [...]}`:

    - url: http://payments:8001                 # a card URL or a server's base URL (fetched)
    - name: search                              # the name to look it up by (else the card's)
      url: http://search:8002/.well-known/agent-card.json
    - {name: ..., url: ..., version: ..., skills: [...], ...}   # a whole card, inline
    - name: billing                             # or an inline card under `card:`
      card: {...}

An entry whose keys are only `name` and `url` is a reference to fetch; any other entry is a card.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import NoneType
from typing import Any

from adk_fluent.arguments import checked_instance, checked_seconds, checked_text
from adk_fluent.errors import BuildError, describe_value, did_you_mean
from adk_fluent.ir.a2a_card import A2A_1X_HINT, is_a2a_1x_card

WELL_KNOWN_CARD = ".well-known/agent-card.json"  # where ADK's to_a2a serves a card
FETCH_SECONDS = 10.0  # the default bound on fetching one card
_REFERENCE_KEYS = frozenset({"name", "url"})


def card_url(url: str) -> str:
    """The URL of an agent card: `url` itself when it names a card, else the card ADK serves
    under that base URL (`<base>/.well-known/agent-card.json`)."""
    if "/.well-known/" in url or url.rstrip("/").endswith(".json"):
        return url
    return url.rstrip("/") + "/" + WELL_KNOWN_CARD


@dataclass(frozen=True)
class _Entry:
    """One entry to resolve: a card given inline, or a URL to fetch it from."""

    origin: str  # how errors name it: the URL, or "entry 2 of agents.yaml"
    name: str | None = None
    url: str | None = None
    card: Any = None


class CardDirectory:
    """A2A agent cards by name, loaded once: from URLs, a directory file or card objects.

    Cards are kept as JSON dicts (an a2a-sdk AgentCard's `model_dump(by_alias=True)`);
    `card(name)` returns a copy. The name of a card is its entry's `name`, else the card's own.
    """

    def __init__(self, cards: Mapping[str, Any] | Iterable[Any] = (), *, source: str = "") -> None:
        self.source = source or "cards given in code"
        pairs = cards.items() if isinstance(cards, Mapping) else ((None, c) for c in cards)
        entries = [
            _Entry(f"card {index + 1} of {self.source}", name=name, card=card)
            for index, (name, card) in enumerate(pairs)
        ]
        self._cards: dict[str, dict[str, Any]] = {}
        self._origins: dict[str, str] = {}
        self._add(entries, {})

    # -- building one ----------------------------------------------------------------------
    @classmethod
    def from_cards(cls, cards: Mapping[str, Any] | Iterable[Any], *, source: str = "") -> Any:
        """A directory of cards given as values (AgentCards or their JSON), by their own names
        or, from a mapping, by its keys."""
        if isinstance(cards, str) or not isinstance(cards, Iterable | Mapping):
            raise BuildError(
                f"from_cards() takes a list of agent cards, not {describe_value(cards)}",
                field="cards",
                hint="e.g. CardDirectory.from_cards([card]) or from_cards({'payments': card}).",
            )
        return cls(cards, source=source)

    @classmethod
    def from_urls(cls, urls: Iterable[str], *, timeout: float = FETCH_SECONDS) -> Any:
        """A directory of the cards at `urls` (card URLs, or servers' base URLs), fetched now;
        each fetch is bounded by `timeout` seconds. Inside a running event loop it is refused
        (the fetch would stop every other task of the loop): `await load(urls)` is the same
        for async code."""
        entries = _url_entries(urls)
        fetched = _fetch_all_sync(entries, _seconds(timeout))
        return cls._made(entries, fetched, _urls_source(entries))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, timeout: float = FETCH_SECONDS) -> Any:
        """A directory from a JSON or YAML file of entries (module docstring); the cards it
        names by URL are fetched now (refused inside a running event loop, as `from_urls`:
        `await load(path)` there)."""
        source, entries = _file_entries(path)
        fetched = _fetch_all_sync(entries, _seconds(timeout), path)
        return cls._made(entries, fetched, source)

    @classmethod
    async def load(cls, source: Any, *, timeout: float = FETCH_SECONDS) -> Any:
        """`from_file` (given a path) or `from_urls` (given a list of URLs) without blocking the
        event loop: the cards are fetched concurrently."""
        if isinstance(source, str | os.PathLike) and not str(source).startswith(
            ("http://", "https://")
        ):
            name, entries = _file_entries(source)
        else:
            entries = _url_entries(source)
            name = _urls_source(entries)
        fetched = await _fetch_all(entries, _seconds(timeout))
        return cls._made(entries, fetched, name)

    @classmethod
    def _made(cls, entries: list[_Entry], fetched: dict[str, Any], source: str) -> Any:
        directory = cls(source=source)
        directory._add(entries, fetched)
        return directory

    def _add(self, entries: list[_Entry], fetched: dict[str, Any]) -> None:
        for entry in entries:
            data = checked_card(fetched[entry.url] if entry.url else entry.card, entry.origin)
            name = entry.name or str(data["name"])
            first = self._origins.get(name)
            if first is not None:
                raise BuildError(
                    f"two cards are named '{name}' in {self.source}: {first} and {entry.origin}",
                    agent=name,
                    field="name",
                    hint="give one of the entries a name of its own: {name: ..., url: ...}.",
                )
            self._cards[name] = data
            self._origins[name] = entry.origin

    # -- looking cards up ------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        """The names of the cards, in the order they were listed."""
        return tuple(self._cards)

    def __contains__(self, name: object) -> bool:
        return name in self._cards

    def __iter__(self) -> Iterator[str]:
        return iter(self._cards)

    def __len__(self) -> int:
        return len(self._cards)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.source}: {', '.join(self._cards) or 'empty'}>"

    def card(self, name: str) -> dict[str, Any]:
        """The card listed as `name` (a copy of its JSON); an unknown name is a BuildError
        with a did-you-mean."""
        data = self._cards.get(name) if isinstance(name, str) else None
        if data is None:
            listed = ", ".join(self._cards) or "none"
            raise BuildError(
                f"no agent named {name!r} in the agent directory ({self.source})",
                agent=name if isinstance(name, str) else None,
                field="name",
                hint=(did_you_mean(name, self._cards) if isinstance(name, str) else None)
                or f"the directory lists: {listed}.",
            )
        return copy.deepcopy(data)

    def origin(self, name: str) -> str:
        """Where the card listed as `name` came from (its URL or its entry)."""
        self.card(name)  # the same error for an unknown name
        return self._origins[name]

    def find(self, *, skill: str | None = None, tag: str | None = None) -> list[str]:
        """The names of the cards with a skill whose id or name is `skill` and/or a skill
        tagged `tag` (both compared case-insensitively), in directory order."""
        if skill is None and tag is None:
            raise BuildError(
                "find() needs skill= or tag=",
                field="skill",
                hint="e.g. directory.find(skill='refund'); directory.names lists every card.",
            )
        for field, value in (("skill", skill), ("tag", tag)):
            hint = f"e.g. directory.find({field}='refund')."
            checked_instance(value, None, field, (str, NoneType), what="a str", hint=hint)
        return [name for name, data in self._cards.items() if _matches(data, skill, tag)]


def _matches(card: dict[str, Any], skill: str | None, tag: str | None) -> bool:
    for entry in card.get("skills") or []:
        if not isinstance(entry, dict):
            continue
        names = {str(entry.get("id", "")).lower(), str(entry.get("name", "")).lower()}
        tags = {str(t).lower() for t in entry.get("tags") or []}
        if (skill is None or skill.lower() in names) and (tag is None or tag.lower() in tags):
            return True
    return False


# -- checking a card ---------------------------------------------------------------------------
def checked_card(card: Any, origin: str) -> dict[str, Any]:
    """`card` (an a2a-sdk AgentCard, its JSON as a dict, or JSON text) as a checked JSON dict;
    a card that is not one names `origin` (and says so when it is an A2A 1.x card)."""
    if hasattr(card, "model_dump") and hasattr(card, "skills"):  # an a2a-sdk AgentCard
        card = card.model_dump(mode="json", by_alias=True, exclude_none=True)
    elif isinstance(card, str | bytes):
        try:
            card = json.loads(card)
        except ValueError as error:
            raise BuildError(
                f"the agent card from {origin} is not JSON ({error})",
                field="card",
                hint="an A2A agent card is a JSON object (ADK serves it at <base>/"
                f"{WELL_KNOWN_CARD}).",
            ) from None
    if not isinstance(card, dict):
        raise BuildError(
            f"the agent card from {origin} is {describe_value(card)}, not a card",
            field="card",
            hint="give an a2a-sdk AgentCard, its JSON as a dict, or {name: ..., url: ...} to "
            "fetch it.",
        )
    try:
        from a2a.types import AgentCard
    except ImportError:  # without a2a-sdk only the fields RemoteAgent needs can be checked
        missing = [key for key in ("name", "url") if not card.get(key)]
        if missing:
            raise BuildError(
                f"the agent card from {origin} has no {missing[0]!r}",
                field="card",
                hint="an A2A card names the agent and the URL it answers at.",
            ) from None
        return dict(card)
    try:
        parsed = AgentCard.model_validate(card)
    except Exception as error:  # noqa: BLE001 - pydantic's message is the diagnosis
        raise BuildError(
            f"the agent card from {origin} is not a card this process's a2a-sdk can read "
            f"({error_summary(error)})",
            field="card",
            hint=_card_hint(card),
        ) from None
    return dict(parsed.model_dump(mode="json", by_alias=True, exclude_none=True))


def error_summary(error: Exception, whole: str = "card") -> str:
    """A short diagnosis: pydantic's errors as `field: problem` (`whole` names the value
    itself), else the first lines."""
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            found = [f"{'.'.join(map(str, e['loc'])) or whole}: {e['msg']}" for e in errors()]
        except (TypeError, KeyError):
            found = []
        if found:
            return "; ".join(found[:3]) + ("; ..." if len(found) > 3 else "")
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return "; ".join(lines[:3]) if lines else type(error).__name__


def _card_hint(card: dict[str, Any]) -> str:
    if is_a2a_1x_card(card):
        return A2A_1X_HINT + "."
    return (
        "an A2A card has name, description, url, version, capabilities, skills, "
        "defaultInputModes and defaultOutputModes; `adk-fluent serve` publishes one."
    )


# -- reading entries ---------------------------------------------------------------------------
def _seconds(timeout: Any) -> float:
    hint = "e.g. timeout=10: it bounds fetching one card."
    return checked_seconds(timeout, None, "timeout", positive=True, hint=hint)


def _checked_url(url: Any, origin: str) -> str:
    if not isinstance(url, str) or not url.strip().startswith(("http://", "https://")):
        raise BuildError(
            f"{origin}: {describe_value(url)} is not an http(s) URL",
            field="url",
            hint=f"a card URL (http://host:port/{WELL_KNOWN_CARD}) or the server's base URL.",
        )
    return card_url(url.strip())


def _url_entries(urls: Any) -> list[_Entry]:
    if isinstance(urls, str) or not isinstance(urls, Iterable):
        raise BuildError(
            f"from_urls() takes a list of URLs, not {describe_value(urls)}",
            field="urls",
            hint="e.g. from_urls(['http://payments:8001']): a list, even for one URL.",
        )
    entries = []
    for index, url in enumerate(urls):
        checked = _checked_url(url, f"URL {index + 1}")
        entries.append(_Entry(checked, url=checked))  # errors about its card name the URL
    return entries


def _urls_source(entries: list[_Entry]) -> str:
    shown = [str(entry.url) for entry in entries]
    return "URLs " + ", ".join(shown[:3]) + (", ..." if len(shown) > 3 else "")


def _file_entries(path: Any) -> tuple[str, list[_Entry]]:
    """(how errors name the file, its entries)."""
    file = Path(path)
    source = f"file '{file}'"
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise BuildError(
            f"cannot read the agent directory {source} ({error.strerror or error})",
            field="path",
            hint="give the path of a JSON or YAML file listing {name?, url} entries or cards.",
        ) from None
    data = _parsed(text, file, source)
    if isinstance(data, dict) and "agents" in data:
        data = data["agents"]
    if not isinstance(data, list):
        raise BuildError(
            f"the agent directory {source} holds {describe_value(data)}, not a list of entries",
            field="path",
            hint="a list of entries, or {agents: [...]}; an entry is {name?, url} or a card.",
        )
    entries = []
    for index, item in enumerate(data):
        origin = f"entry {index + 1} of {source}"
        entries.append(_file_entry(item, origin))
    return source, entries


def _parsed(text: str, file: Path, source: str) -> Any:
    if file.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except ValueError as error:
            raise BuildError(
                f"the agent directory {source} is not JSON ({error})",
                field="path",
                hint="fix the JSON, or write the directory in YAML (a .yaml file).",
            ) from None
    import yaml  # google-adk depends on PyYAML

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise BuildError(
            f"the agent directory {source} is not YAML ({error_summary(error)})",
            field="path",
            hint="a YAML list of entries: `- url: http://host:8001`.",
        ) from None


def _file_entry(item: Any, origin: str) -> _Entry:
    if isinstance(item, str):
        return _Entry(origin, url=_checked_url(item, origin))
    if not isinstance(item, dict):
        raise BuildError(
            f"{origin} is {describe_value(item)}, not an entry",
            field="path",
            hint="an entry is {name?, url} (a card to fetch) or a card; a bare URL works too.",
        )
    name = item.get("name")
    if name is not None:
        hint = "the name the directory lists the agent under, e.g. name: payments."
        checked_text(name, None, "name", hint=hint, where=origin)
    if "card" in item:
        extra = sorted(set(item) - {"name", "card"})
        if extra:
            raise BuildError(
                f"{origin} has a card and also {', '.join(extra)}",
                field="card",
                hint="put every field of the card inside `card:`; beside it only `name:`.",
            )
        return _Entry(origin, name=name, card=item["card"])
    if set(item) <= _REFERENCE_KEYS:
        if "url" not in item:
            raise BuildError(
                f"{origin} has a name but no url",
                agent=name,
                field="url",
                hint="{name: ..., url: http://host:port} (the card is fetched from it).",
            )
        url = _checked_url(item["url"], origin)
        return _Entry(f"{origin} ({url})", name=name, url=url)
    return _Entry(origin, card=item)  # a whole card, inline: listed by its own name


# -- fetching ----------------------------------------------------------------------------------
def _fetch_all_sync(entries: list[_Entry], timeout: float, source: Any = None) -> dict[str, str]:
    """`_fetch_all`, blocking until every card is fetched; refused inside a running event
    loop, which a blocking fetch would stall for up to `timeout`."""
    urls = list(dict.fromkeys(e.url for e in entries if e.url))
    if not urls:
        return {}
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # no loop in this thread: blocking is what the caller asked for
        return asyncio.run(_fetch_all(entries, timeout))
    what = "from_file(path)" if source is not None else "from_urls(urls)"
    given = "path" if source is not None else "urls"
    raise BuildError(
        f"AgentDirectory.{what} fetches {len(urls)} card(s) over HTTP and would block the "
        "running event loop (every other task of it waits meanwhile)",
        field=given,
        hint=f"in async code write `await AgentDirectory.load({given})`: the same "
        "directory, its cards fetched concurrently without blocking.",
    )


async def _fetch_all(entries: list[_Entry], timeout: float) -> dict[str, str]:
    """The JSON text of every card named by URL, by URL, fetched concurrently."""
    import httpx

    urls = list(dict.fromkeys(e.url for e in entries if e.url))
    if not urls:
        return {}
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=True) as client:
        replies = await asyncio.gather(*(client.get(url) for url in urls), return_exceptions=True)
    for reply in replies:  # what is not a failed request is not ours to explain
        if isinstance(reply, BaseException) and not isinstance(reply, httpx.HTTPError):
            raise reply
    return {url: _card_text(url, reply) for url, reply in zip(urls, replies, strict=True)}


def _card_text(url: str, reply: Any) -> str:
    """The body of a card's HTTP response; a failed request or another status than 200 is a
    BuildError naming the URL."""
    if isinstance(reply, BaseException):
        raise BuildError(
            f"no agent card could be fetched from {url} ({type(reply).__name__}: "
            f"{reply or 'no reply'})",
            field="url",
            hint="is the agent's server running and is the URL right? ADK serves a card at "
            f"<base>/{WELL_KNOWN_CARD}.",
        )
    if reply.status_code != 200:
        raise BuildError(
            f"{url} answered HTTP {reply.status_code} instead of an agent card",
            field="url",
            hint=f"check the URL: ADK serves a card at <base>/{WELL_KNOWN_CARD}.",
        )
    return str(reply.text)
