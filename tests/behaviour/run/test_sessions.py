"""When a second run() continues a conversation, through the real Runner on scripted models.

The rule (docs/sessions.md): a conversation is (store, app name, user id, session id). The
default in-memory store belongs to the tree and the backend, so a config built again with equal
values (lists, dicts, middleware objects of its own) continues the conversation; a different
app name, user, tree or backend does not. The in-memory store outlives the eviction of the
compiled App, and leaves once its backend is garbage. On a database store, turns run with
different configs share one service, so turns of one session still take turns.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections import OrderedDict

import pytest

from adk_fluent import Agent, ExecutionConfig, Middleware
from adk_fluent.middleware import log, retry
from adk_fluent.run import engine as engine_module
from adk_fluent.run.engine import ENGINE
from adk_fluent.testing import mock_backend
from tests.conftest import fresh_db_service, request_texts
from tests.support import postgres

# the PostgreSQL fixtures (tests/support/postgres.py): a server per test session, a database each
postgres_server = postgres.postgres_server
postgres_url = postgres.postgres_url

APP = "adk_fluent_app"


def chat() -> Agent:
    """Built afresh at each use, as a web handler would."""
    return Agent("chat").instruct("Answer briefly.")


def user_messages(session) -> list[str]:
    return [
        "".join(p.text for p in e.content.parts if p.text)
        for e in session.events
        if e.author == "user" and e.content and e.content.parts
    ]


CONFIGS = {
    # a list in a dict: ExecutionConfig's own hash fails on it
    "custom-metadata-with-a-list": lambda: ExecutionConfig(
        app_name="support", custom_metadata={"tags": ["beta", "eu"], "team": {"id": 7}}
    ),
    # middleware objects of their own each time (each keeps its own records)
    "new-middleware-objects": lambda: ExecutionConfig(
        app_name="support", middleware=[retry(max_attempts=2), log()]
    ),
}


@pytest.mark.parametrize("make_config", CONFIGS.values(), ids=CONFIGS.keys())
async def test_a_config_built_again_with_equal_values_continues_the_conversation(make_config):
    backend = mock_backend({"chat": ["Hello Ada.", "You are Ada."]})
    await chat().run("I am Ada.", session_id="s1", backend=backend, config=make_config())
    await chat().run("Who am I?", session_id="s1", backend=backend, config=make_config())

    second = backend.requests["chat"][1]
    assert request_texts(second) == ["I am Ada.", "Hello Ada.", "Who am I?"]
    session = await chat().session("s1", backend=backend, config=make_config())
    assert session is not None and session.app_name == "support"
    assert user_messages(session) == ["I am Ada.", "Who am I?"]


class CountCalls(Middleware):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def before_model_callback(self, *, callback_context, llm_request):
        self.calls += 1


async def test_each_new_middleware_object_sees_its_own_turn():
    """The compiled App is not shared between middleware objects (they hold state), even
    though the conversation is."""
    backend = mock_backend({"chat": ["one", "two"]})
    first, second = CountCalls(), CountCalls()
    for prompt, counter in (("a", first), ("b", second)):
        config = ExecutionConfig(middleware=[counter])
        await chat().run(prompt, session_id="s1", backend=backend, config=config)
    assert (first.calls, second.calls) == (1, 1)
    assert request_texts(backend.requests["chat"][1]) == ["a", "one", "b"]


async def test_a_config_with_other_limits_continues_but_another_app_name_does_not():
    backend = mock_backend({"chat": ["one", "two", "three"]})
    await chat().run("first", session_id="s1", backend=backend)
    # max_llm_calls changes how a turn runs, not whose conversation it is (as in a database)
    await chat().run(
        "second", session_id="s1", backend=backend, config=ExecutionConfig(max_llm_calls=5)
    )
    assert request_texts(backend.requests["chat"][1]) == ["first", "one", "second"]
    # another app name is another conversation, in the same store
    other = ExecutionConfig(app_name="other_app")
    await chat().run("third", session_id="s1", backend=backend, config=other)
    assert request_texts(backend.requests["chat"][2]) == ["third"]
    assert user_messages(await chat().session("s1", backend=backend)) == ["first", "second"]
    assert user_messages(await chat().session("s1", backend=backend, config=other)) == ["third"]


async def test_another_user_tree_or_backend_is_another_conversation():
    backend = mock_backend({"chat": ["one", "two"]})
    await chat().run("first", session_id="s1", backend=backend)
    await chat().run("second", session_id="s1", user_id="bob", backend=backend)
    assert request_texts(backend.requests["chat"][1]) == ["second"]

    other_tree = Agent("chat").instruct("Answer at length.")
    assert await other_tree.session("s1", backend=backend) is None
    assert await chat().session("s1", backend=mock_backend({"chat": "x"})) is None
    assert user_messages(await chat().session("s1", backend=backend)) == ["first"]


@pytest.fixture
def one_compiled_app(monkeypatch):
    """The engine keeps one compiled App: the next run with other inputs evicts it."""
    monkeypatch.setattr(ENGINE, "_bound", OrderedDict())
    monkeypatch.setattr(ENGINE, "_capacity", 1)


async def test_the_conversation_outlives_the_eviction_of_its_compiled_app(one_compiled_app):
    backend = mock_backend({"chat": ["Hello Ada.", "You are Ada."]})
    await chat().run("I am Ada.", session_id="s1", backend=backend)
    first_app = ENGINE._bound[next(reversed(ENGINE._bound))].app

    await Agent("other").run("hi", session_id="s1", backend=mock_backend({"other": "hm"}))
    assert all(bound.app is not first_app for bound in ENGINE._bound.values())

    await chat().run("Who am I?", session_id="s1", backend=backend)
    assert ENGINE._bound[next(reversed(ENGINE._bound))].app is not first_app  # compiled again
    assert request_texts(backend.requests["chat"][1]) == ["I am Ada.", "Hello Ada.", "Who am I?"]


async def test_an_in_memory_store_leaves_once_its_backend_is_garbage(one_compiled_app):
    backend = mock_backend({"chat": "one"})
    await chat().run("hi", session_id="s1", backend=backend)
    store = weakref.ref(ENGINE._stores.service_for(chat().to_ir(), backend))
    assert (await chat().session("s1", backend=backend)) is not None
    await Agent("other").run("hi", backend=mock_backend({"other": "x"}))  # evicts chat's App

    gc.collect()
    assert store() is not None  # its backend lives: a later turn continues
    del backend
    gc.collect()
    len(ENGINE._stores)  # a lookup drops the entries of dead objects
    gc.collect()
    assert store() is None


async def test_turns_with_different_configs_on_one_database_session_take_turns(sqlite_url):
    """Both configs run on one service of the URL, so the two turns of one session run one
    after the other and both are kept."""
    agent = Agent("chat", mock_backend({"chat": ["x"] * 4}).model_for("chat")).instruct("Echo.")
    configs = [ExecutionConfig(middleware=[retry()]) for _ in range(4)]
    await asyncio.gather(
        *[
            agent.ask(f"msg {i}", session_id="shared", session_store=sqlite_url, config=config)
            for i, config in enumerate(configs)
        ]
    )
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=APP, user_id="user", session_id="shared"
    )
    assert sorted(user_messages(stored)) == [f"msg {i}" for i in range(4)]
    assert len(stored.events) == 8


def test_ask_sync_continues_a_postgresql_session_from_one_event_loop_to_the_next(postgres_url):
    """Each ask_sync() runs its own event loop, and asyncpg's connections serve only the loop
    that opened them: the store of a URL is one per loop."""
    backend = mock_backend({"chat": ["one", "two", "three"]})
    configs = [None, None, ExecutionConfig(middleware=[retry()])]
    replies = [
        chat().ask_sync(
            f"m{i}", session_id="s", session_store=postgres_url, backend=backend, config=config
        )
        for i, config in enumerate(configs)
    ]
    assert replies == ["one", "two", "three"]
    assert request_texts(backend.requests["chat"][2]) == ["m0", "one", "m1", "two", "m2"]


def test_repeated_ask_sync_on_a_database_leaves_no_connection_behind(sqlite_url):
    """Each ask_sync() opens the URL's store in its own event loop; the store (aiosqlite holds
    a thread per connection) closes with the loop, and the conversation is in the file."""
    import threading

    def connections() -> list[threading.Thread]:  # aiosqlite runs each connection in a thread
        def from_aiosqlite(thread: threading.Thread) -> bool:  # its class, or its target
            target = getattr(thread, "_target", None)
            return any(
                getattr(x, "__module__", "").startswith("aiosqlite") for x in (type(thread), target)
            )

        return [t for t in threading.enumerate() if from_aiosqlite(t)]

    before = set(connections())  # another test's, if any (not this one's concern)
    backend = mock_backend({"chat": [f"reply {i}" for i in range(12)]})
    for i in range(12):
        chat().ask_sync(f"m{i}", session_id="s", session_store=sqlite_url, backend=backend)
    # a closed connection's thread ends just after the close: give each a moment to
    left = set(connections()) - before
    for thread in left:
        thread.join(timeout=3 / len(left))
    assert [t for t in left if t.is_alive()] == []  # 12 turns, no connection left open
    assert request_texts(backend.requests["chat"][11])[-3:] == ["m10", "reply 10", "m11"]


async def test_a_database_url_is_one_service_until_the_stores_are_closed(sqlite_url):
    from adk_fluent import close_session_stores

    service = engine_module.shared_session_service(sqlite_url)
    assert engine_module.shared_session_service(sqlite_url + " ") is service
    await close_session_stores()
    assert engine_module.shared_session_service(sqlite_url) is not service
