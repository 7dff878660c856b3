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
from aquascope_core.textsafe import redact
from aquascope_core.workspace import aquascope_home

__all__ = ["open_checkpointer", "default_url", "describe", "connect_sqlite", "scrubbing", "ScrubSecrets"]


def default_url() -> str:
    return os.environ.get("AQUASCOPE_CHECKPOINTS") or f"sqlite:///{aquascope_home() / 'checkpoints.sqlite'}"


def describe(url: str | None) -> str:
    url = url or default_url()
    if url.startswith("postgres"):
        return "postgres://" + url.split("@")[-1]
    return url


class ScrubSecrets:
    """A saver mixin: nothing shaped or named like a credential reaches the checkpoint tables.

    Run metadata (the saver copies the run config's metadata and configurable values into it) is redacted by
    key name and by shape; state
    values and pending writes by key name (a ``request.api_key`` a host put in the input), so the user's
    bulky data is stored as given.
    """

    def put(self, config, checkpoint, metadata, new_versions):
        return super().put(_scrub_config(config), _scrub_checkpoint(checkpoint), redact(dict(metadata)), new_versions)

    def put_writes(self, config, writes, task_id, task_path=""):
        return super().put_writes(config, [(ch, redact(v, shapes=False)) for ch, v in writes], task_id, task_path)

    async def aput(self, config, checkpoint, metadata, new_versions):
        return await super().aput(_scrub_config(config), _scrub_checkpoint(checkpoint), redact(dict(metadata)),
                                  new_versions)

    async def aput_writes(self, config, writes, task_id, task_path=""):
        return await super().aput_writes(config, [(ch, redact(v, shapes=False)) for ch, v in writes], task_id,
                                         task_path)


def _scrub_config(config):
    # the saver copies the run's metadata and configurable values into the stored metadata
    return {**config, **{k: redact(dict(config[k])) for k in ("metadata", "configurable") if config.get(k)}}


def _scrub_checkpoint(checkpoint):
    values = checkpoint.get("channel_values") or {}
    return {**checkpoint, "channel_values": {k: redact(v, shapes=False) for k, v in values.items()}}


def scrubbing(saver_cls: type) -> type:
    """``saver_cls`` with :class:`ScrubSecrets` mixed in (SQLite here; Postgres and async savers alike),
    graphs.forks.PastAnswersStay (a fork from a past checkpoint takes its new answer) and the large state values
    kept once by digest (graphs.checkpoint_payloads): secrets are scrubbed first, then the values split into
    references; a read resolves the references before the fork's answers are looked at."""
    from graphs.checkpoint_payloads import payload_mixin
    from graphs.forks import PastAnswersStay

    keep = payload_mixin(saver_cls)
    bases = (ScrubSecrets, PastAnswersStay, keep, saver_cls) if keep else (ScrubSecrets, PastAnswersStay, saver_cls)
    return type(f"Scrubbed{saver_cls.__name__}", bases, {})


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
    conn = connect_sqlite(path)
    try:
        saver = scrubbing(SqliteSaver)(conn)
        _retry_locked(saver.setup)
        yield saver
    finally:
        conn.close()


def connect_sqlite(path: str | Path, *, busy_timeout_s: float | None = None) -> sqlite3.Connection:
    """A connection for a checkpoint file shared by concurrent studies.

    WAL lets readers go on while one writer commits; the busy timeout makes a writer wait for the lock
    (``AQUASCOPE_SQLITE_BUSY_S``, default 60 s) instead of failing with "database is locked";
    ``synchronous=NORMAL`` under WAL keeps every committed checkpoint through a process kill (only a power
    loss may drop the last commits, never corrupt the file).
    """
    timeout = float(busy_timeout_s if busy_timeout_s is not None else os.environ.get("AQUASCOPE_SQLITE_BUSY_S") or 60)
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=timeout)
    conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    _retry_locked(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _retry_locked(fn, attempts: int = 20):
    """Run ``fn``, retrying briefly when SQLite reports the file locked (the journal switch and the schema
    set-up take an exclusive lock that the busy handler does not always wait for)."""
    import random
    import time

    for i in range(attempts):
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or i == attempts - 1:
                raise
            time.sleep(0.05 + random.random() * 0.1)
