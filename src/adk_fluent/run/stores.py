"""Session stores: in memory by default, any SQLAlchemy URL through ADK's DatabaseSessionService,
or a session service the caller built. Stores opened from URLs are adk-fluent's to close.

Concurrency, which ADK leaves to the caller:

* tables: ADK creates them lazily on first use, and on some releases (1.25) concurrent first
  users of a new database skip the creation and fail with "no such table". `ready()` prepares
  each database store once, before its first use, while concurrent first callers wait.
* SQLite: a store opened from a URL gets a busy timeout (writers wait instead of failing with
  "database is locked") and the WAL journal (readers never block the writer).
* one session, two turns at once: `session_turn()` runs them one after the other in this
  process (on ADK 2.x a database store refuses a writer whose copy of the session is stale),
  and `ensure_session()` creates a session once, whoever asks first.
* several processes on one new database (replicas): `prepare_session_store()` creates the
  tables, and the apps' state rows, before they start (docs/deployment.md).

PostgreSQL URLs that cannot work with ADK's async store (no driver, a synchronous one, a driver
not installed, the `postgres://` spelling) are refused before ADK sees them.
"""

from __future__ import annotations

import asyncio
import importlib
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from adk_fluent.errors import BuildError, install_extra, redacted, with_article

SQLITE_BUSY_TIMEOUT = 30.0  # seconds a SQLite writer waits for the lock before failing

_opened_stores: list[Any] = []  # database session services created from a URL by adk-fluent
# run() / stream()'s one service per URL and event loop (so one lock per session, one connection
# pool; a pool's connections belong to the loop that opened them: asyncpg's cannot serve another)
_shared_stores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = (
    weakref.WeakKeyDictionary()
)


async def close_session_stores() -> None:
    """Close the database connections of session stores adk-fluent opened from URLs
    (`session_store="sqlite:///..."`), and tear down the sessions' `per_session` resources:
    call it when your app shuts down. A later run with a URL opens its store again."""
    from adk_fluent.adk.resources import end_sessions

    await end_sessions()
    _shared_stores.clear()
    while _opened_stores:
        engine = getattr(_opened_stores.pop(), "db_engine", None)
        if engine is not None:
            await engine.dispose()


async def close_loop_stores() -> list[Any]:
    """Close the database stores run() opened in the running event loop (`ask_sync()` calls it
    before its loop ends: connections cannot outlive their loop); returns them."""
    closed = list(_shared_stores.pop(asyncio.get_running_loop(), {}).values())
    for service in closed:
        if service in _opened_stores:
            _opened_stores.remove(service)
        await service.db_engine.dispose()
    return closed


def shared_session_service(store: Any) -> Any:
    """`session_service_for(store)`, but one service per database URL (in each event loop)
    until `close_session_stores()`: every App that runs on the URL shares it, so turns of one
    session take turns (`session_turn`) whatever config each runs with. Call it in a loop."""
    if not isinstance(store, str):
        return session_service_for(store)
    shared = _shared_stores.setdefault(asyncio.get_running_loop(), {})
    service = shared.get(store.strip())
    if service is None:
        service = session_service_for(store)
        if hasattr(service, "db_engine"):
            shared[store.strip()] = service
    return service


async def prepare_session_store(store: str, *, apps: tuple[str, ...] | list[str] = ()) -> None:
    """Create ADK's session tables in the database at `store` (a URL), and the state row of
    each app in `apps`, then close the connection.

    Run it once before several processes (replicas of `adk api_server`, workers) share a new
    database. ADK creates its tables on first use in each process, and processes doing that at
    the same moment fail ("relation ... does not exist", or a duplicate key on CREATE TABLE).
    ADK 1.x also inserts an app's state row with the app's first session, so replicas creating
    an app's first sessions at once collide on it ("app_states_pkey"); with the app named here
    the row exists beforehand. Running it again, or from several processes, is harmless.
    """
    if not isinstance(store, str) or store.strip() == "memory":
        raise BuildError(
            f"prepare_session_store() needs a database URL, not {_short(redacted(str(store)))}",
            field="session_store",
            hint="e.g. prepare_session_store('postgresql+asyncpg://user@host:5432/sessions').",
        )
    if isinstance(apps, str) or not all(isinstance(app, str) and app for app in apps):
        raise BuildError(
            f"prepare_session_store(apps=...) needs a list of app names, got {apps!r:.60}",
            field="apps",
            hint="e.g. apps=['support'] (the agent folder's name, as adk api_server names it).",
        )
    service = _database_store(store)
    _opened_stores.remove(service)  # closed here, not at the app's shutdown
    try:
        await ready(service)
        for app in apps:
            # ADK's public API only: a session creates the app's row, deleting it keeps the row
            # (and an empty state row for the preparing user id).
            await ensure_session(service, app, _PREPARE_ID, _PREPARE_ID)
            await service.delete_session(app_name=app, user_id=_PREPARE_ID, session_id=_PREPARE_ID)
    finally:
        await service.db_engine.dispose()


_PREPARE_ID = "adk_fluent_prepare"


def session_service_for(store: Any) -> Any:
    """A session service from a store spec: None/'memory', 'sqlite:///file.db', any DB URL, or a service."""
    if store is None or store == "memory":
        from google.adk.sessions import InMemorySessionService

        return InMemorySessionService()
    if isinstance(store, str):
        return _database_store(store)
    if is_session_service(store):
        return store
    raise BuildError(
        f"session_store must be 'memory', a database URL or an ADK session service, "
        f"not {with_article(type(store).__name__)}",
        field="session_store",
        hint="use 'memory', 'sqlite:///path.db', 'postgresql+asyncpg://...', or an ADK "
        "BaseSessionService instance.",
    )


def is_session_service(value: Any) -> bool:
    return all(hasattr(value, name) for name in ("get_session", "create_session", "append_event"))


def _database_store(store: str) -> Any:
    url = store.strip()
    if url.startswith("sqlite:///"):
        url = "sqlite+aiosqlite:///" + url[len("sqlite:///") :]
    if "://" not in url:
        raise BuildError(
            f"session_store={_short(redacted(store))} is neither 'memory' nor a database URL",
            field="session_store",
            hint="a file needs a URL, e.g. session_store='sqlite:///sessions.db'.",
        )
    _check_postgresql(url, store)
    sqlite_file = _check_sqlite(url, store)
    try:
        from google.adk.sessions.database_session_service import DatabaseSessionService
    except ImportError as error:
        raise BuildError(
            f"session_store={_short(redacted(store))} needs ADK's DatabaseSessionService, "
            f"which failed to import ({error})",
            field="session_store",
            hint=f"install the database extra: {install_extra('db')}.",
        ) from None
    kwargs: dict[str, Any] = {}
    if sqlite_file is not None:
        # sqlite3's `timeout` is SQLite's busy timeout (ADK passes engine kwargs through).
        kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT}
    try:
        service = DatabaseSessionService(db_url=url, **kwargs)
    except Exception as error:  # ADK wraps a missing driver or a bad URL in a ValueError
        cause = error.__cause__ or error  # ADK's own text repeats the URL, password and all
        raise BuildError(
            f"session_store={_short(redacted(store))} cannot be opened: "
            f"{type(cause).__name__}: {redacted(str(cause))[:200]}",
            field="session_store",
            hint=_driver_hint(url),
        ) from None
    _opened_stores.append(service)
    if sqlite_file is not None:
        _sqlite_files[service] = (store, sqlite_file)
    return service


def _driver_hint(url: str) -> str:
    """What to write instead of a database URL ADK's (asynchronous) store could not open."""
    dialect = url.split("://", 1)[0].casefold().partition("+")[0]
    if dialect == "sqlite":
        return _SQLITE_HINT
    if dialect in ("mysql", "mariadb"):
        return (
            "name an asynchronous driver, e.g. session_store='mysql+aiomysql://user:password@"
            "host:3306/database' (pip install aiomysql)."
        )
    return (
        "name the database's asynchronous SQLAlchemy driver in the URL, e.g. "
        "session_store='postgresql+asyncpg://user:password@host:5432/database', or use "
        "session_store='sqlite:///sessions.db'."
    )


_SQLITE_HINT = (
    "write session_store='sqlite:///sessions.db' (a file in the current folder) or "
    "'sqlite:////absolute/path/sessions.db'; adk-fluent runs it on the aiosqlite driver itself "
    "(the db extra brings it)."
)


def _check_sqlite(url: str, store: str) -> str | None:
    """A SQLite URL ADK's store can open: the one spelling `sqlite:///PATH` (adk-fluent adds
    the asynchronous driver, aiosqlite), aiosqlite installed, and for a file, a folder that
    exists. Returns the file's path (None: not a SQLite file). Checked before ADK sees the URL:
    otherwise a missing folder is a raw `OperationalError: unable to open database file` at
    the first turn, and a synchronous driver an error about asyncio."""
    scheme, _, rest = url.partition("://")
    dialect, _, driver = scheme.casefold().partition("+")
    if dialect != "sqlite":
        return None
    shown = _short(redacted(store))
    if not rest.startswith("/"):  # sqlite://x.db: SQLAlchemy reads x.db as a host name
        path = rest.split("?", 1)[0]
        raise BuildError(
            f"session_store={shown} is not a SQLite URL ADK's store can open: a file takes "
            "three slashes after 'sqlite:'",
            field="session_store",
            hint=f"write session_store='sqlite:///{path}'."
            if path
            else "leave session_store out (or 'memory') for a store in memory, or " + _SQLITE_HINT,
        )
    if driver != "aiosqlite":
        path = rest[1:]
        raise BuildError(
            f"session_store={shown} names the driver {driver!r}, which ADK's "
            "DatabaseSessionService cannot use (it needs an asynchronous one)",
            field="session_store",
            hint=f"write session_store='sqlite:///{path}': adk-fluent runs it on the aiosqlite "
            f"driver ({install_extra('db')}).",
        )
    try:
        importlib.import_module("aiosqlite")
    except ImportError:
        raise BuildError(
            f"session_store={shown} needs the aiosqlite package, which is not installed",
            field="session_store",
            hint=f"{install_extra('db')}.",
        ) from None
    if not _is_sqlite_file(url):
        return None
    database, _, query = url.split(":///", 1)[1].partition("?")
    if "uri=true" in query.casefold():  # a `file:` URI: SQLite reads it, not a plain path
        return database
    file = Path(database)
    folder = file.parent
    if not folder.is_dir():
        where = "" if folder.is_absolute() else f" ({folder.resolve()})"
        raise BuildError(
            f"session_store={shown}: the folder {str(folder)!r}{where} does not exist; SQLite "
            "creates the file, not its folder",
            field="session_store",
            hint=f"create the folder first (os.makedirs({str(folder)!r}, exist_ok=True)), or "
            "name a file in a folder that exists, e.g. session_store='sqlite:///sessions.db'.",
        )
    if file.is_dir():
        raise BuildError(
            f"session_store={shown} names the folder {database!r}, not a file",
            field="session_store",
            hint=f"name a file in it, e.g. session_store='sqlite:///{database.rstrip('/')}"
            "/sessions.db'.",
        )
    return database


# PostgreSQL drivers SQLAlchemy can drive with asyncio (ADK's store is async only), by the name
# in the URL, with the module to import and how to install it.
_ASYNC_POSTGRESQL_DRIVERS = {
    "asyncpg": ("asyncpg", install_extra("db")),
    "psycopg": ("psycopg", "pip install 'psycopg[binary]'"),
    "psycopg_async": ("psycopg", "pip install 'psycopg[binary]'"),
}
_POSTGRESQL_HINT = "write session_store='postgresql+asyncpg://user:password@host:5432/database'"


def _check_postgresql(url: str, store: str) -> None:
    """A PostgreSQL URL names a driver SQLAlchemy can run under asyncio, and it is installed.

    Checked before ADK sees the URL: without a driver SQLAlchemy picks a default that differs
    between its releases (psycopg2, which is synchronous, on 2.0), and ADK's own error repeats
    the URL, password and all.
    """
    scheme = url.split("://", 1)[0].casefold()
    dialect, _, driver = scheme.partition("+")
    shown = _short(redacted(store))
    if dialect == "postgres":
        raise BuildError(
            f"session_store={shown} starts with '{scheme}://', which SQLAlchemy does not know",
            field="session_store",
            hint=f"SQLAlchemy names the database 'postgresql': {_POSTGRESQL_HINT} "
            f"(asyncpg comes with the db extra: {install_extra('db')}).",
        )
    if dialect != "postgresql":
        return
    if not driver:
        raise BuildError(
            f"session_store={shown} names no driver, and ADK's DatabaseSessionService needs "
            "an asynchronous one",
            field="session_store",
            hint=f"{_POSTGRESQL_HINT} (asyncpg comes with the db extra: {install_extra('db')}).",
        )
    if driver not in _ASYNC_POSTGRESQL_DRIVERS:
        raise BuildError(
            f"session_store={shown} names the driver {driver!r}, which ADK's "
            "DatabaseSessionService cannot use (it needs an asynchronous driver: "
            f"{', '.join(sorted(_ASYNC_POSTGRESQL_DRIVERS))})",
            field="session_store",
            hint=f"{_POSTGRESQL_HINT} (asyncpg comes with the db extra: {install_extra('db')}).",
        )
    module, install = _ASYNC_POSTGRESQL_DRIVERS[driver]
    try:
        importlib.import_module(module)
    except ImportError:
        raise BuildError(
            f"session_store={shown} needs the {module} package, which is not installed",
            field="session_store",
            hint=f"{install}.",
        ) from None


def _is_sqlite_file(url: str) -> bool:
    if not url.startswith("sqlite"):
        return False
    database = url.split(":///", 1)[1] if ":///" in url else ""
    return database not in ("", ":memory:") and not database.startswith(":memory:")


def _short(value: str) -> str:
    return repr(value if len(value) <= 80 else value[:77] + "...")


# Stores this module opened on a SQLite file (they get the WAL journal in `ready`), with the
# URL as given and the file's path (for the message when the file cannot be opened).
_sqlite_files: weakref.WeakKeyDictionary[Any, tuple[str, str]] = weakref.WeakKeyDictionary()
# Database stores whose tables exist; what `ready` is doing per loop while it prepares one.
_ready: weakref.WeakSet[Any] = weakref.WeakSet()
_preparing: weakref.WeakKeyDictionary[Any, dict[int, asyncio.Future[None]]] = (
    weakref.WeakKeyDictionary()
)


async def ready(service: Any) -> None:
    """Prepare a database store once, before its first use: journal mode, then tables.

    Concurrent first callers wait for the one preparation instead of racing ADK's lazy one.
    Services that are not database stores need nothing.
    """
    if not hasattr(service, "db_engine") or service in _ready:
        return
    loop = asyncio.get_running_loop()
    pending = _preparing.setdefault(loop, {})
    future = pending.get(id(service))
    if future is None:
        future = asyncio.ensure_future(_prepare(service))
        pending[id(service)] = future
        future.add_done_callback(lambda _: pending.pop(id(service), None))
    await asyncio.shield(future)


async def _prepare(service: Any) -> None:
    sqlite_file = _sqlite_files.get(service)
    if sqlite_file is not None:
        # WAL is a property of the file: set once, readers then never block the writer.
        from sqlalchemy.exc import DBAPIError

        try:
            async with service.db_engine.connect() as connection:
                await connection.exec_driver_sql("PRAGMA journal_mode=WAL")
        except DBAPIError as error:  # no access to the folder or file, or not a database
            store, path = sqlite_file
            reason = " ".join(str(error.orig).split())[:160]
            raise BuildError(
                f"session_store={_short(redacted(store))}: SQLite cannot open or create the "
                f"file {str(Path(path).resolve())!r} ({reason})",
                field="session_store",
                hint="check that this process may write in that folder and that the file, if "
                "it exists, is a SQLite database; or name another file.",
            ) from None
    prepare = getattr(service, "prepare_tables", None)
    if prepare is not None:  # public on newer ADK releases
        await prepare()
    else:  # older releases prepare on first use; alone, that first use is safe
        await service.list_sessions(app_name=_PREPARE_ID, user_id=_PREPARE_ID)
    _ready.add(service)


async def ensure_session(
    service: Any, app_name: str, user_id: str, session_id: str, *, fresh: bool = False
) -> None:
    """Create the session unless it exists (`fresh`: the id is new, so do not look first).

    Within this process callers hold `session_turn`. Another process creating the same session
    at the same moment makes create fail: then it exists. Creating two sessions at once can also
    race on the app's or the user's state row (ADK 1.x inserts it on a session's first create
    and the second insert fails): the row exists then, and creating again succeeds.
    """
    ids = {"app_name": app_name, "user_id": user_id, "session_id": session_id}
    if not fresh and await _exists(service, ids):
        return
    for attempt in range(_CREATE_ATTEMPTS):
        try:
            await service.create_session(**ids)
            return
        except Exception as error:
            if not _already_exists(error):
                raise
            if await service.get_session(**ids) is not None:
                return
            if attempt == _CREATE_ATTEMPTS - 1:
                raise


_CREATE_ATTEMPTS = 3  # the app's state row, the user's state row, then the session itself


async def _exists(service: Any, ids: dict[str, str]) -> bool:
    """Whether the session exists, without reading its history (a long conversation's is
    long, and the Runner reads it right after)."""
    from google.adk.sessions.base_session_service import GetSessionConfig

    from adk_fluent.adk.compat import session_known

    known = session_known(service, **ids)
    if known is not None:
        return known
    found = await service.get_session(**ids, config=GetSessionConfig(num_recent_events=1))
    return found is not None


async def append_state_event(
    service: Any, app_name: str, user_id: str, session_id: str, state_delta: dict[str, Any]
) -> None:
    """Store `state_delta` as an event of the user's, with no content, in its own invocation:
    run(state=...) on an ADK whose Runner drops `run_async(state_delta=...)`. The caller holds
    the session's turn; the session exists."""
    import uuid

    from google.adk.events.event import Event
    from google.adk.events.event_actions import EventActions

    session = await service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
    event = Event(
        author="user",
        invocation_id=f"e-{uuid.uuid4()}",
        actions=EventActions(state_delta=dict(state_delta)),
    )
    await service.append_event(session=session, event=event)


def _already_exists(error: BaseException) -> bool:
    from google.adk.errors.already_exists_error import AlreadyExistsError

    # A racing insert on releases without the AlreadyExistsError wrapper: SQLAlchemy's own.
    return isinstance(error, AlreadyExistsError) or type(error).__name__ == "IntegrityError"


class _KeyedLocks:
    """One asyncio.Lock per key and event loop, dropped when nobody holds or awaits it."""

    def __init__(self) -> None:
        self._by_loop: weakref.WeakKeyDictionary[Any, dict[Any, list[Any]]] = (
            weakref.WeakKeyDictionary()
        )

    @asynccontextmanager
    async def hold(self, key: Any) -> AsyncIterator[None]:
        locks = self._by_loop.setdefault(asyncio.get_running_loop(), {})
        entry = locks.get(key)
        if entry is None:
            entry = locks[key] = [asyncio.Lock(), 0]
        entry[1] += 1
        try:
            async with entry[0]:
                yield
        finally:
            entry[1] -= 1
            if entry[1] == 0:
                locks.pop(key, None)


_turns = _KeyedLocks()


def session_turn(service: Any, app_name: str, user_id: str, session_id: str) -> Any:
    """Hold one session for one turn: turns of one session in this process run one at a time,
    in the order they asked (the service is held alive by the caller while the key exists)."""
    return _turns.hold((id(service), app_name, user_id, session_id))
