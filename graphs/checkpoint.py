"""Checkpointers: a SQLite file by default (embedded), Postgres for the hosted crew.

``open_checkpointer(url)`` is a context manager yielding a ready saver:

- ``None`` or ``sqlite:///path/to/file.sqlite``: SQLite (default file: $AQUASCOPE_HOME/checkpoints.sqlite);
- ``postgresql://user:pass@host:port/db``: Postgres, through the ``postgres`` extra
  (langgraph-checkpoint-postgres); its tables are created on first use.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from aquascope_core.errors import InputError
from aquascope_core.workspace import aquascope_home

__all__ = ["open_checkpointer", "default_url", "describe"]


def default_url() -> str:
    return os.environ.get("AQUASCOPE_CHECKPOINTS") or f"sqlite:///{aquascope_home() / 'checkpoints.sqlite'}"


def describe(url: str | None) -> str:
    url = url or default_url()
    if url.startswith("postgres"):
        return "postgres://" + url.split("@")[-1]
    return url


@contextmanager
def open_checkpointer(url: str | None = None) -> Iterator[object]:
    url = url or default_url()
    if url.startswith(("postgresql://", "postgres://")):
        from graphs.checkpoint_postgres import open_postgres  # autocommit, dict_row; see that module

        with open_postgres(url) as saver:
            yield saver
        return
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///"):])
    elif url.startswith("sqlite://"):
        path = Path(url[len("sqlite://"):])
    else:
        raise InputError.bad_value("checkpointer", url, "sqlite:///path/file.sqlite or postgresql://user@host/db")
    from langgraph.checkpoint.sqlite import SqliteSaver

    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()
