"""The checkpointer a self-hosted LangGraph server uses: an async factory ``langgraph.json`` can name.

    {
      "graphs": {"aquascope": "./graphs/graph.py:graph"},
      "checkpointer": {"path": "./graphs/server.py:checkpointer"}
    }

with ``AQUASCOPE_CHECKPOINTS=postgresql://user:password@host:5432/db`` in the server's environment (an
``AsyncPostgresSaver`` over a pool, graphs.checkpoint_postgres), or a ``sqlite:///path`` URL (an
``AsyncSqliteSaver``). A server runs every node in an event loop, so a synchronous saver (what
``graphs.checkpoint.open_checkpointer`` yields for the CLI) fails every run there with NotImplementedError;
this factory yields async savers only, each with the key scrubbing of graphs.checkpoint. The shipped
langgraph.json names it; without the ``checkpointer`` key a server uses its own saver (the graph's guard,
graphs.guard, still keeps keys out of it).
"""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from aquascope_core.errors import InputError

__all__ = ["checkpointer", "open_async_checkpointer"]


@asynccontextmanager
async def open_async_checkpointer(url: str | None = None) -> AsyncIterator[Any]:
    """An async saver for ``url`` (default: AQUASCOPE_CHECKPOINTS, else the SQLite file)."""
    from graphs.checkpoint import default_url
    from graphs.checkpoint_postgres import is_postgres_url, open_async_postgres

    url = url or default_url()
    if is_postgres_url(url):
        async with open_async_postgres(url) as saver:
            yield saver
        return
    if not url.startswith("sqlite://"):
        raise InputError.bad_value("AQUASCOPE_CHECKPOINTS", url, "postgresql://user@host/db or sqlite:///path/file.sqlite")
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from graphs.checkpoint import scrubbing  # every saver the server can use scrubs keys, SQLite included

    path = Path(url[len("sqlite:///"):] if url.startswith("sqlite:///") else url[len("sqlite://"):])
    path.parent.mkdir(parents=True, exist_ok=True)
    async with scrubbing(AsyncSqliteSaver).from_conn_string(str(path)) as saver:
        await saver.setup()
        yield saver


def checkpointer() -> Any:
    """The factory langgraph.json names: an async context manager yielding the saver (read at server start)."""
    return open_async_checkpointer(os.environ.get("AQUASCOPE_CHECKPOINTS"))
