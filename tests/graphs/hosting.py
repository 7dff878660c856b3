"""The production stack for the hosting test and benchmark: Redis on a loopback port, the open Postgres + Redis
runtime for the stock langgraph-api (``langhost serve`` from PyPI langgraph-runtime-pg / langhost, pinned, in its
own venv, created once in a cached temp folder), several servers on one database, each stopped by pid.

The venv is made with pip from the package registry the first time (minutes) and reused after; set
AQUASCOPE_LANGHOST_VENV to keep it elsewhere. The servers run the project from this checkout (PYTHONPATH)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx

from tests.graphs.lg_server import OFFLINE, ROOT, config_variant
from tests.graphs.pg_server import free_port

LANGHOST = "0.11.1.post1"  # pins langgraph-api 0.11.1 and langgraph-checkpoint-postgres 3.1.0
# the servers admit this token (the operator's, AQUASCOPE_TOKENS) unless the caller configures others
TOKEN = "hosting-operator-token-0123456789abcdef"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}


def langhost_venv() -> Path:
    """The venv holding ``langhost`` (and the project's dependencies), created when missing."""
    venv = Path(os.environ.get("AQUASCOPE_LANGHOST_VENV") or Path(tempfile.gettempdir()) / f"aquascope-langhost-{LANGHOST}")
    exe = venv / "bin" / "langhost"
    if exe.exists():
        return venv
    if not venv.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"langhost=={LANGHOST}",
                    f"langgraph-runtime-pg=={LANGHOST}", str(ROOT)], check=True, timeout=1800)
    return venv


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """redis://127.0.0.1:PORT/0 of a redis-server with no persistence (stopped on exit)."""
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        import socket

        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Server:
    """One ``langhost serve`` process (its own session, so the kill reaches it and its children only)."""

    def __init__(self, venv: Path, folder: Path, config: Path, env: dict[str, str], name: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / f"{name}.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([str(venv / "bin" / "langhost"), "serve", "--host", "127.0.0.1", "--port",
                                      str(self.port), "-c", str(config), "--no-browser"], cwd=folder,
                                     env={**os.environ, **OFFLINE, "PYTHONPATH": str(ROOT), **env},
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"langhost exited: {self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(self.url + "/ok", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"langhost did not start: {self.log_path.read_text()[-3000:]}")
            time.sleep(0.5)

    def kill(self) -> None:
        """kill -9 of the server's process group (it and the workers it started)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                self.kill()
        self.log.close()


@contextmanager
def servers(folder: Path, n: int, database_url: str, redis_url: str, *, heartbeat: float = 5.0,
            extra_env: dict[str, str] | None = None) -> Iterator[list[Server]]:
    """``n`` langhost servers on one Postgres and one Redis with the project's production config
    (langgraph-hosted.json: the graph, the project's checkpointer on the same database, its auth handler
    admitting :data:`TOKEN` unless ``extra_env`` configures tokens). Heartbeat (and so the sweep, twice it)
    shortened to ``heartbeat`` seconds."""
    venv = langhost_venv()
    config = config_variant(folder, "langgraph-hosted.json")
    tokens = {"AQUASCOPE_TOKENS", "AQUASCOPE_TOKENS_FILE"} & set(extra_env or {})
    env = {**({} if tokens else {"AQUASCOPE_TOKENS": f'{{"{TOKEN}": "operator"}}'}),
           "DATABASE_URI": database_url, "REDIS_URI": redis_url, "AQUASCOPE_CHECKPOINTS": database_url,
           "LG_BG_JOB_HEARTBEAT": str(heartbeat), "AQUASCOPE_HOME": str(folder / "home"),
           **(extra_env or {})}
    started: list[Server] = []
    try:
        for i in range(n):  # one at a time: the first applies the database migrations
            s = Server(venv, folder, config, env, f"server{i}")
            started.append(s)
            s.wait_ready()
        yield started
    finally:
        for s in started:
            s.stop()


PROBLEM = {"site": {"lat": 41.10, "lon": -74.96}, "request": {"text": "Design flow for a road crossing, 100-year"}}


async def plan_studies(urls: list[str], n: int) -> list[tuple[str, str]]:
    """``n`` studies started through the sdk, spread over the servers, each run to its plan; (url, thread)."""
    import anyio
    from langgraph_sdk import get_client

    from tests.answers import sdk_past_request

    out: list[tuple[str, str]] = []

    async def one(i: int) -> None:
        c = get_client(url=urls[i % len(urls)], headers=HEADERS)
        tid = (await c.threads.create())["thread_id"]
        await c.runs.wait(tid, "aquascope", input=PROBLEM)
        await sdk_past_request(c, tid)  # the basin characteristics the crew asks for: gone on without them
        out.append((urls[i % len(urls)], tid))

    async with anyio.create_task_group() as tg:
        for i in range(n):
            tg.start_soon(one, i)
    return out


async def approve_all(studies: list[tuple[str, str]]) -> None:
    """Each plan approved in a background run on the server the study was started on."""
    from langgraph_sdk import get_client

    for url, tid in studies:
        await get_client(url=url, headers=HEADERS).runs.create(tid, "aquascope", command={"resume": {"type": "accept"}})


async def wait_done(url: str, threads: list[str], timeout: float) -> dict[str, dict]:
    """Every thread's values once each is done (read through ``url``), or TimeoutError with the stragglers."""
    import anyio
    from langgraph_sdk import get_client

    c = get_client(url=url, headers=HEADERS)
    done: dict[str, dict] = {}
    deadline = time.monotonic() + timeout
    while len(done) < len(threads):
        for tid in threads:
            if tid not in done:
                values = (await c.threads.get_state(tid))["values"] or {}
                if values.get("status") in ("done", "declined"):
                    done[tid] = values
        if len(done) < len(threads):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(threads) - len(done)} of {len(threads)} studies unfinished")
            await anyio.sleep(1.0)
    return done


@contextmanager
def postgres(databases: tuple[str, ...] = ("aquascope",)) -> Iterator[dict[str, str]]:
    """A PostgreSQL server outside pytest (the benchmark): initdb in a temp folder, as the postgres user when root;
    database name -> URL."""
    import pwd

    from tests.graphs.pg_server import _as_user, _bin

    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if not initdb or not pg_ctl:
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    user = None
    if os.geteuid() == 0:
        pwd.getpwnam("postgres")
        user = "postgres"
    tmp = Path(tempfile.mkdtemp(prefix="aq-pg-"))  # its own folder: the postgres user must reach it
    if user:
        shutil.chown(tmp, user=user)
    port = free_port()
    subprocess.run(_as_user([initdb, "-D", str(tmp / "data"), "-U", "aq", "--auth=trust", "-E", "UTF8", "--no-sync"],
                            user), check=True, capture_output=True, timeout=60)
    opts = f"-c listen_addresses=127.0.0.1 -p {port} -k {tmp} -c fsync=off"
    subprocess.run(_as_user([pg_ctl, "-D", str(tmp / "data"), "-o", opts, "-l", str(tmp / "log"), "-w", "-t", "30",
                             "start"], user), check=True, capture_output=True, timeout=60)
    try:
        import psycopg

        with psycopg.connect(f"postgresql://aq@127.0.0.1:{port}/postgres", autocommit=True) as conn:
            for db in databases:
                conn.execute(f"CREATE DATABASE {db}")
        yield {db: f"postgresql://aq@127.0.0.1:{port}/{db}" for db in databases}
    finally:
        subprocess.run(_as_user([pg_ctl, "-D", str(tmp / "data"), "-m", "immediate", "-w", "-t", "30", "stop"], user),
                       capture_output=True, timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)
