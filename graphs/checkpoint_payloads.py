"""Large state values kept once in the checkpointer's database, by digest, and referenced from the checkpoints.

A saver stores the state's channel values with every checkpoint (SQLite: the whole state at every step) and
every value a step wrote again in its pending writes: a flood study's inventory, run, study, findings and
report (20-45 KB each) were serialised 4-8 times a study, about 1 MB of SQLite. A saver built by
:func:`graphs.checkpoint.scrubbing` instead writes each value of at least :data:`MIN_BYTES` once, compressed,
into a ``payloads`` table keyed by the SHA-256 of its serialised form (``INSERT OR IGNORE``: a value that did not
change between steps, or a write that becomes the next checkpoint's value, is the same row), and the checkpoint
or write keeps ``{"__aquascope_payload__": digest}`` in its place.

Reading goes through the same saver (``get_tuple``, ``list`` and their async forms): every reference is
replaced by its value before LangGraph, Studio, an inbox, the MCP server or the Python API see the state, so
they read what was written. A payload is committed before the checkpoint or write that references it, so a
process killed at any step leaves no reference without its value (at worst a payload nothing references yet).

The table lives in the checkpointer's own database (SQLite file or Postgres), so a hosted crew's servers share
it as they share the checkpoints. Payloads are content-addressed and may be shared between threads, so deleting
a thread leaves them in place.
"""

from __future__ import annotations

import hashlib
import threading
import zlib
from collections import OrderedDict
from typing import Any, Iterable, Mapping

__all__ = ["MARK", "MIN_BYTES", "payload_mixin"]

MARK = "__aquascope_payload__"
MIN_BYTES = 1024  # smaller values stay inline (a reference and its row would cost about as much)
_CACHE_ENTRIES = 256
_CACHE_LOCK = threading.Lock()

_SQLITE_TABLE = "CREATE TABLE IF NOT EXISTS payloads (digest TEXT PRIMARY KEY, type TEXT NOT NULL, value BLOB NOT NULL)"
_PG_TABLE = "CREATE TABLE IF NOT EXISTS aquascope_payloads (digest TEXT PRIMARY KEY, type TEXT NOT NULL, value BYTEA NOT NULL)"


def _is_ref(value: Any) -> bool:
    return type(value) is dict and len(value) == 1 and MARK in value


class _Payloads:
    """What every backend shares: splitting values into references and rows, and resolving references."""

    def _payload_cache(self) -> "OrderedDict[str, tuple[str, bytes]]":
        cache = self.__dict__.get("_aq_payloads")
        if cache is None:
            cache = self.__dict__.setdefault("_aq_payloads", OrderedDict())
        return cache

    def _remember(self, digest: str, typ: str, zdata: bytes) -> None:
        cache = self._payload_cache()
        with _CACHE_LOCK:  # the saver is called from LangGraph's background threads
            cache[digest] = (typ, zdata)
            cache.move_to_end(digest)
            while len(cache) > _CACHE_ENTRIES:
                cache.popitem(last=False)

    def _reference(self, value: Any, rows: list[tuple[str, str, bytes]]) -> Any:
        if not isinstance(value, (dict, list, tuple)) or not value or _is_ref(value):
            return value
        typ, data = self.serde.dumps_typed(value)
        if len(data) < MIN_BYTES:
            return value
        digest = hashlib.sha256(typ.encode() + b"\0" + data).hexdigest()
        if digest not in self._payload_cache():  # known committed (stored or read by this saver)
            rows.append((digest, typ, zlib.compress(data, 6)))
        return {MARK: digest}

    def _stored(self, rows: Iterable[tuple[str, str, bytes]]) -> None:
        # only after the commit: a checkpoint written meanwhile by another thread (LangGraph saves in the
        # background while the next step runs) writes the row again rather than referencing an uncommitted one
        for digest, typ, zdata in rows:
            self._remember(digest, typ, zdata)

    def _split_checkpoint(self, checkpoint: Mapping[str, Any]) -> tuple[dict[str, Any], list]:
        rows: list[tuple[str, str, bytes]] = []
        values = checkpoint.get("channel_values") or {}
        refs = {k: self._reference(v, rows) for k, v in values.items()}
        return {**checkpoint, "channel_values": refs}, rows

    def _split_writes(self, writes: Iterable[tuple[str, Any]]) -> tuple[list[tuple[str, Any]], list]:
        rows: list[tuple[str, str, bytes]] = []
        return [(ch, self._reference(v, rows)) for ch, v in writes], rows

    @staticmethod
    def _digests(tup: Any) -> set[str]:
        values = (tup.checkpoint.get("channel_values") or {}).values()
        writes = (w[2] for w in tup.pending_writes or ())
        return {v[MARK] for v in (*values, *writes) if _is_ref(v)}

    def _known(self, tup: Any) -> tuple[dict[str, tuple[str, bytes]], list[str]]:
        """The payloads ``tup`` references that the cache holds (copied under its lock, so another thread's
        eviction cannot take them away before they are read), and the digests to fetch."""
        if tup is None:
            return {}, []
        cache = self._payload_cache()
        with _CACHE_LOCK:
            known = {d: cache[d] for d in self._digests(tup) if d in cache}
        return known, sorted(d for d in self._digests(tup) if d not in known)

    def _found(self, rows: Iterable[Any], known: dict[str, tuple[str, bytes]]) -> None:
        rows = [(digest, typ, bytes(zdata)) for digest, typ, zdata in rows]
        known.update((digest, (typ, zdata)) for digest, typ, zdata in rows)
        self._stored(rows)

    def _value(self, value: Any, known: Mapping[str, tuple[str, bytes]]) -> Any:
        if not _is_ref(value):
            return value
        got = known.get(value[MARK])
        if got is None:
            raise LookupError(f"checkpoint payload {value[MARK]} is missing from the checkpointer's database")
        return self.serde.loads_typed((got[0], zlib.decompress(got[1])))

    def _resolved(self, tup: Any, known: Mapping[str, tuple[str, bytes]]) -> Any:
        if tup is None:
            return None
        values = tup.checkpoint.get("channel_values") or {}
        checkpoint = {**tup.checkpoint, "channel_values": {k: self._value(v, known) for k, v in values.items()}}
        writes = [(t, ch, self._value(v, known)) for t, ch, v in tup.pending_writes or ()]
        return tup._replace(checkpoint=checkpoint, pending_writes=writes)


class _KeepSync(_Payloads):
    """For the synchronous savers (SqliteSaver, PostgresSaver)."""

    def put(self, config, checkpoint, metadata, new_versions):
        checkpoint, rows = self._split_checkpoint(checkpoint)
        self._store(rows)
        return super().put(config, checkpoint, metadata, new_versions)

    def put_writes(self, config, writes, task_id, task_path=""):
        writes, rows = self._split_writes(writes)
        self._store(rows)
        return super().put_writes(config, writes, task_id, task_path)

    def _load(self, tup):
        known, missing = self._known(tup)
        if missing:
            self._found(self._fetch(missing), known)
        return self._resolved(tup, known)

    def get_tuple(self, config):
        return self._load(super().get_tuple(config))

    def list(self, config, **kwargs):
        # the saver's own listing holds its lock while it yields: read it all, then resolve
        for tup in [*super().list(config, **kwargs)]:
            yield self._load(tup)


class _KeepAsync(_Payloads):
    """For the asynchronous savers (AsyncSqliteSaver, AsyncPostgresSaver); their synchronous methods call these."""

    async def aput(self, config, checkpoint, metadata, new_versions):
        checkpoint, rows = self._split_checkpoint(checkpoint)
        await self._astore(rows)
        return await super().aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config, writes, task_id, task_path=""):
        writes, rows = self._split_writes(writes)
        await self._astore(rows)
        return await super().aput_writes(config, writes, task_id, task_path)

    async def _aload(self, tup):
        known, missing = self._known(tup)
        if missing:
            self._found(await self._afetch(missing), known)
        return self._resolved(tup, known)

    async def aget_tuple(self, config):
        return await self._aload(await super().aget_tuple(config))

    async def alist(self, config, **kwargs):
        for tup in [t async for t in super().alist(config, **kwargs)]:
            yield await self._aload(tup)


def _marks(n: int) -> str:
    return ",".join("?" * n)


class _Sqlite(_KeepSync):
    def _cur(self):
        if not self.__dict__.get("_aq_table"):
            with self.cursor() as cur:
                cur.execute(_SQLITE_TABLE)
            self.__dict__["_aq_table"] = True
        return self.cursor()

    def _store(self, rows):
        if rows:
            with self._cur() as cur:
                cur.executemany("INSERT OR IGNORE INTO payloads (digest, type, value) VALUES (?, ?, ?)", rows)
            self._stored(rows)

    def _fetch(self, digests):
        with self._cur() as cur:
            cur.execute(f"SELECT digest, type, value FROM payloads WHERE digest IN ({_marks(len(digests))})", digests)
            return cur.fetchall()


class _AioSqlite(_KeepAsync):
    async def _ready(self):
        await self.setup()
        if not self.__dict__.get("_aq_table"):
            async with self.lock:
                await self.conn.execute(_SQLITE_TABLE)
                await self.conn.commit()
            self.__dict__["_aq_table"] = True

    async def _astore(self, rows):
        if rows:
            await self._ready()
            async with self.lock:
                await self.conn.executemany("INSERT OR IGNORE INTO payloads (digest, type, value) VALUES (?, ?, ?)",
                                            rows)
                await self.conn.commit()
            self._stored(rows)

    async def _afetch(self, digests):
        await self._ready()
        async with self.lock, self.conn.execute(
                f"SELECT digest, type, value FROM payloads WHERE digest IN ({_marks(len(digests))})", digests) as cur:
            return list(await cur.fetchall())


_PG_INSERT = "INSERT INTO aquascope_payloads (digest, type, value) VALUES (%s, %s, %s) ON CONFLICT (digest) DO NOTHING"
_PG_SELECT = "SELECT digest, type, value FROM aquascope_payloads WHERE digest = ANY(%s)"


def _pg_rows(rows):
    return [(r["digest"], r["type"], r["value"]) for r in rows]


def _pg_race(exc: Exception) -> bool:
    # two servers creating the table at once: the loser sees a unique violation on the catalogue
    return type(exc).__name__ in ("UniqueViolation", "DuplicateTable")


class _Postgres(_KeepSync):
    def setup(self):
        super().setup()
        with self._cursor() as cur:
            try:
                cur.execute(_PG_TABLE)
            except Exception as exc:
                if not _pg_race(exc):
                    raise

    def _store(self, rows):
        if rows:
            with self._cursor() as cur:
                cur.executemany(_PG_INSERT, rows)
            self._stored(rows)

    def _fetch(self, digests):
        with self._cursor() as cur:
            cur.execute(_PG_SELECT, (list(digests),))
            return _pg_rows(cur.fetchall())


class _AsyncPostgres(_KeepAsync):
    async def setup(self):
        await super().setup()
        async with self._cursor() as cur:
            try:
                await cur.execute(_PG_TABLE)
            except Exception as exc:
                if not _pg_race(exc):
                    raise

    async def _astore(self, rows):
        if rows:
            async with self._cursor() as cur:
                await cur.executemany(_PG_INSERT, rows)
            self._stored(rows)

    async def _afetch(self, digests):
        async with self._cursor() as cur:
            await cur.execute(_PG_SELECT, (list(digests),))
            return _pg_rows(await cur.fetchall())


def payload_mixin(saver_cls: type) -> type | None:
    """The mixin that keeps ``saver_cls``'s large values once, or None for a saver it does not know."""
    names = {c.__name__ for c in saver_cls.__mro__}
    for name, mixin in (("AsyncSqliteSaver", _AioSqlite), ("SqliteSaver", _Sqlite),
                        ("AsyncPostgresSaver", _AsyncPostgres), ("PostgresSaver", _Postgres)):
        if name in names:
            return mixin
    return None
