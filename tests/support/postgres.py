"""A real PostgreSQL for the tests: a throwaway cluster started once per test session (per
xdist worker) and a fresh database for each test that asks for one.

The server binaries come from PATH or the Debian layout (/usr/lib/postgresql/<version>/bin);
`.ci/install-postgres` installs them on CI. PostgreSQL refuses to run as root, so as root the
cluster belongs to and runs as the `postgres` system user. It listens on 127.0.0.1 only (its unix
socket stays in the cluster's folder), trusts local connections, and runs without fsync: a
test's database is thrown away, so durability would only cost time. `ADK_FLUENT_TEST_POSTGRES_URL`
(`postgresql+asyncpg://user@host:port/db`) uses a server someone else runs instead.

Use it from a test module by naming the fixtures there (no conftest or plugin needed):

    from tests.support import postgres

    postgres_server = postgres.postgres_server
    postgres_url = postgres.postgres_url

then ask for `postgres_url` (a fresh database's URL for ADK's DatabaseSessionService).
Tests skip, with the reason, only where no server can be had.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.support.servers import free_port

ENV_URL = "ADK_FLUENT_TEST_POSTGRES_URL"
# set by .ci/run once .ci/install-postgres found or installed a server: no skipping then
REQUIRE_ENV = "ADK_FLUENT_REQUIRE_POSTGRES"
START_SECONDS = 60  # initdb and the first start on a busy 2-core machine
SQL_SECONDS = 30
SERVICE_USER = "postgres"
_T = TypeVar("_T")


class Unavailable(Exception):
    """No PostgreSQL server can be had here; the message says why (the skip reason)."""


def find_bin_dir() -> Path | None:
    """The folder holding initdb and pg_ctl: PATH first, then /usr/lib/postgresql/*/bin (newest)."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda path: [int(p) if p.isdigit() else 0 for p in Path(path).parent.name.split(".")],
    )
    for folder in reversed(candidates):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _in_thread(make: Callable[[], Any]) -> Any:
    """Run a coroutine to completion on a loop of its own in a new thread (callers may be inside
    a running loop, or inside a test whose loop must not be touched)."""
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = asyncio.run(make())
        except BaseException as error:  # handed to the caller's thread
            result["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(SQL_SECONDS + 5)
    if thread.is_alive():
        raise TimeoutError(f"PostgreSQL did not answer within {SQL_SECONDS}s")
    if "error" in result:
        raise result["error"]
    return result.get("value")


def _parts(url: str) -> tuple[str, str]:
    """(the URL up to the database name, the database name) of a postgresql URL."""
    head, _, database = url.rpartition("/")
    return head, database.split("?", 1)[0]


@dataclass
class PostgresServer:
    """A running PostgreSQL: its base URL (no database) and, when this module started it, how to
    stop it."""

    base_url: str  # postgresql+asyncpg://user@host:port
    admin_database: str = "postgres"
    stop: Callable[[], None] = field(default=lambda: None)
    log: Path | None = None

    def url(self, database: str) -> str:
        """The SQLAlchemy URL of `database` on this server (asyncpg driver)."""
        return f"{self.base_url}/{database}"

    def dsn(self, database: str) -> str:
        """The same database as a plain libpq/asyncpg DSN."""
        return self.url(database).replace("postgresql+asyncpg://", "postgresql://", 1)

    def create_database(self, prefix: str = "t") -> str:
        """A new empty database; returns its SQLAlchemy URL."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def execute(self, sql: str, database: str | None = None) -> None:
        """Run one SQL statement on the server (autocommit; CREATE DATABASE needs it)."""
        import asyncpg

        async def run() -> None:
            connection = await asyncpg.connect(
                self.dsn(database or self.admin_database), timeout=SQL_SECONDS
            )
            try:
                await connection.execute(sql, timeout=SQL_SECONDS)
            finally:
                await connection.close()

        _in_thread(run)

    def fetch(self, sql: str, database: str) -> list[dict[str, Any]]:
        """The rows of one query, as dicts."""
        import asyncpg

        async def run() -> list[dict[str, Any]]:
            connection = await asyncpg.connect(self.dsn(database), timeout=SQL_SECONDS)
            try:
                return [dict(row) for row in await connection.fetch(sql, timeout=SQL_SECONDS)]
            finally:
                await connection.close()

        return _in_thread(run)


def _run_as(user: str | None) -> list[str]:
    """The command prefix that runs a server binary as `user` (None: as ourselves)."""
    if user is None:
        return []
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", user, "--"]
    setpriv = shutil.which("setpriv")
    if setpriv:
        return [setpriv, f"--reuid={user}", f"--regid={user}", "--init-groups", "--"]
    raise Unavailable(f"running as root, and neither runuser nor setpriv can switch to {user!r}")


def _service_user() -> str | None:
    """Who runs the server: ourselves, or as root (which PostgreSQL refuses) the postgres user."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    import pwd

    try:
        pwd.getpwnam(SERVICE_USER)
    except KeyError:
        raise Unavailable(
            f"running as root and there is no {SERVICE_USER!r} user to run PostgreSQL as "
            "(PostgreSQL refuses root; the Debian package creates that user)"
        ) from None
    return SERVICE_USER


def _scratch_root() -> Path:
    """A parent folder for the cluster: RAM (/dev/shm) where writable, else the temp folder."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())


def start_cluster(*, durable: bool = False, max_connections: int = 300) -> PostgresServer:
    """initdb a new cluster in a temp folder and start it on a free 127.0.0.1 port.

    `durable=False` turns fsync off (tests); the benchmark keeps PostgreSQL's defaults.
    Raises Unavailable when no server can be had here.
    """
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise Unavailable(
            "no PostgreSQL server binaries (initdb, pg_ctl) on PATH or in "
            "/usr/lib/postgresql/*/bin; .ci/install-postgres installs them (Debian: apt-get "
            f"install postgresql), or set {ENV_URL}"
        )
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        raise Unavailable(
            "asyncpg is not installed (the db extra brings it: pip install -e '.[db]' in the checkout)"
        ) from None
    user = _service_user()
    prefix = _run_as(user)
    root = Path(tempfile.mkdtemp(prefix="adk-fluent-pg-", dir=_scratch_root()))
    data = root / "data"
    log = root / "server.log"
    if user is not None:
        import pwd

        entry = pwd.getpwnam(user)
        os.chown(root, entry.pw_uid, entry.pw_gid)

    def run(*command: str, timeout: float = START_SECONDS) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*prefix, *command],
            cwd=root,  # the server user must be able to enter the working folder
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def remove() -> None:
        shutil.rmtree(root, ignore_errors=True)

    init = run(
        str(bin_dir / "initdb"),
        "-D",
        str(data),
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
    )
    if init.returncode != 0:
        remove()
        raise RuntimeError(f"initdb failed:\n{init.stdout}\n{init.stderr}")
    settings = [
        "listen_addresses = '127.0.0.1'",
        f"unix_socket_directories = '{root}'",
        f"max_connections = {max_connections}",
        "shared_buffers = '32MB'",  # small: several clusters (one per xdist worker) share RAM
    ]
    if not durable:
        settings += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
    with (data / "postgresql.conf").open("a", encoding="utf-8") as conf:
        conf.write("\n# adk-fluent tests\n" + "\n".join(settings) + "\n")

    port = 0
    for _attempt in range(3):  # another process may take the free port before the server does
        port = free_port()
        started = run(
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(log),
            "-w",
            "-t",
            str(START_SECONDS),
            "-o",
            f"-p {port}",
            "start",
            timeout=START_SECONDS + 10,
        )
        if started.returncode == 0:
            break
    else:
        tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
        remove()
        raise RuntimeError(f"pg_ctl start failed:\n{started.stdout}\n{started.stderr}\n{tail}")

    def stop() -> None:
        try:
            run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop", timeout=60)
        finally:
            remove()

    return PostgresServer(f"postgresql+asyncpg://postgres@127.0.0.1:{port}", stop=stop, log=log)


def external_server(url: str) -> PostgresServer:
    """A server someone else runs, from `ADK_FLUENT_TEST_POSTGRES_URL` (its database is where
    test databases are created from)."""
    if url.startswith("postgresql://"):
        url = "postgresql+asyncpg://" + url[len("postgresql://") :]
    head, database = _parts(url)
    return PostgresServer(head, admin_database=database or "postgres")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL for this test session (one per xdist worker), stopped at its end."""
    pytest.importorskip("asyncpg", reason="the PostgreSQL tests need asyncpg (the `db` extra)")
    given = os.environ.get(ENV_URL)
    if given:
        yield external_server(given)
        return
    try:
        server = start_cluster()
    except Unavailable as why:
        if os.environ.get(REQUIRE_ENV) == "1":  # CI installed one: a skip would hide a break
            pytest.fail(f"no PostgreSQL server, though {REQUIRE_ENV}=1: {why}")
        pytest.skip(f"no PostgreSQL server: {why}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A fresh, empty database on the test session's PostgreSQL: its SQLAlchemy URL."""
    return postgres_server.create_database()
