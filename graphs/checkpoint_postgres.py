"""Postgres checkpointers for the hosted crew (the ``postgres`` extra: langgraph-checkpoint-postgres, psycopg).

- :func:`open_postgres` (sync, a ``PostgresSaver``): the CLI and the Python API, e.g.
  ``aquascope studio ... --checkpoints postgresql://user@127.0.0.1:5432/aquascope``;
- :func:`open_async_postgres` (async, an ``AsyncPostgresSaver`` over a connection pool): a server, where
  every run is async and a synchronous saver fails with NotImplementedError (see graphs.server).

Both connect the way the savers need: ``autocommit=True`` (the savers commit nothing themselves),
``row_factory=dict_row`` (they read rows by column name) and ``prepare_threshold=0`` (no server-side
prepared statements, which a pooler such as pgbouncer would break). The tables are created on first use.
"""

from __future__ import annotations

from contextlib import asynccontextmanager, contextmanager
from typing import Any, AsyncIterator, Iterator

from aquascope_core.errors import InputError

__all__ = ["open_postgres", "open_async_postgres", "is_postgres_url", "CONNECT_KWARGS", "safe_url"]

CONNECT_KWARGS = {"autocommit": True, "prepare_threshold": 0}


def is_postgres_url(url: str | None) -> bool:
    return bool(url) and str(url).startswith(("postgresql://", "postgres://"))


def safe_url(url: str) -> str:
    """The URL without its password (for messages and logs)."""
    return "postgresql://" + url.split("@")[-1] if "@" in url else url


def _imports() -> tuple[Any, Any]:
    try:
        from psycopg.rows import dict_row
        from langgraph.checkpoint.postgres import PostgresSaver  # noqa: F401
    except ImportError:
        raise InputError("a Postgres checkpointer needs the postgres extra: pip install 'aquascope-crew[postgres]'",
                         argument="checkpointer") from None
    return dict_row, PostgresSaver


def _connect_error(url: str, exc: Exception) -> InputError:
    return InputError(f"cannot connect to the Postgres checkpointer at {safe_url(url)}: {str(exc).strip()}",
                      argument="checkpointer", value=safe_url(url),
                      recovery="Check that the server runs and accepts this user and database "
                               "(postgresql://user:password@host:port/database).")


@contextmanager
def open_postgres(url: str) -> Iterator[Any]:
    """A ready ``PostgresSaver`` on one connection (closed on exit)."""
    import psycopg

    dict_row, PostgresSaver = _imports()
    try:
        conn = psycopg.Connection.connect(url, row_factory=dict_row, **CONNECT_KWARGS)
    except psycopg.OperationalError as exc:
        raise _connect_error(url, exc) from None
    from graphs.checkpoint import scrubbing  # no credential reaches the checkpoint tables

    try:
        saver = scrubbing(PostgresSaver)(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()


@asynccontextmanager
async def open_async_postgres(url: str, *, max_size: int = 10) -> AsyncIterator[Any]:
    """A ready ``AsyncPostgresSaver`` over an async connection pool (closed on exit)."""
    import psycopg

    dict_row, _ = _imports()
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg_pool import AsyncConnectionPool

    pool = AsyncConnectionPool(url, min_size=1, max_size=max_size, open=False,
                               kwargs={"row_factory": dict_row, **CONNECT_KWARGS})
    try:
        await pool.open(wait=True, timeout=15)
    except (psycopg.OperationalError, Exception) as exc:  # the pool raises PoolTimeout when it cannot connect
        await pool.close()
        raise _connect_error(url, exc) from None
    from graphs.checkpoint import scrubbing

    try:
        saver = scrubbing(AsyncPostgresSaver)(pool)
        await saver.setup()
        yield saver
    finally:
        await pool.close()
