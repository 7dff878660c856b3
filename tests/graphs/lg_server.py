"""`langgraph dev` for the tests: started on a free loopback port with the offline flags, from a temp folder
(so .langgraph_api/ is written there, not into the project), with a langgraph.json whose paths point at this
checkout; stopped by the context manager, bounded in time."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from tests.graphs.pg_server import free_port

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = {"LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true", "LANGSMITH_TRACING": "false"}


def langgraph_bin() -> str:
    exe = Path(sys.executable).with_name("langgraph")
    found = str(exe) if exe.exists() else shutil.which("langgraph")
    if not found:
        pytest.skip("langgraph-cli is not installed (pip install 'langgraph-cli[inmem]')")
    return found


def config_variant(folder: Path, source: str = "langgraph.json", **extra: Any) -> Path:
    """A copy of the project's langgraph.json (or ``source``) with absolute paths (and ``extra`` keys) in
    ``folder``."""
    spec = json.loads((ROOT / source).read_text())
    spec["dependencies"] = [str(ROOT)]
    spec["graphs"] = {k: str(ROOT / v.removeprefix("./")) for k, v in spec["graphs"].items()}
    for key in ("auth", "checkpointer"):
        if key in spec:
            spec[key] = {**spec[key], "path": str(ROOT / spec[key]["path"].removeprefix("./"))}
    if "app" in spec.get("http", {}):  # the review desk's routes (graphs/desk/app.py)
        spec["http"] = {**spec["http"], "app": str(ROOT / spec["http"]["app"].removeprefix("./"))}
    spec.update(extra)
    path = folder / "langgraph.json"
    path.write_text(json.dumps(spec, indent=2))
    return path


@contextmanager
def langgraph_dev(folder: Path, env: dict[str, str] | None = None, config: Path | None = None,
                  timeout: float = 60.0) -> Iterator[str]:
    """The base URL of a running `langgraph dev` (stopped on exit). Authentication is off (AQUASCOPE_AUTH=off)
    unless ``env`` configures tokens."""
    port = free_port()
    config = config or config_variant(folder)
    tokens = {"AQUASCOPE_TOKENS", "AQUASCOPE_TOKENS_FILE"} & set(env or {})
    full_env = {**os.environ, **OFFLINE, "PYTHONPATH": str(ROOT), **({} if tokens else {"AQUASCOPE_AUTH": "off"}),
                **(env or {})}
    log = open(folder / "server.log", "w")
    proc = subprocess.Popen([langgraph_bin(), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1",
                             "--port", str(port), "--config", str(config)], cwd=folder, env=full_env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError("langgraph dev exited: " + (folder / "server.log").read_text()[-3000:])
            try:
                if httpx.get(url + "/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("langgraph dev did not start: " + (folder / "server.log").read_text()[-3000:])
            time.sleep(0.3)
        yield url
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # the server and the worker it started, nothing else
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=5)
        log.close()


async def http_status(coro) -> int:
    """The HTTP status an sdk call ends with: 200 when it returns, else the status of its HTTPStatusError."""
    import httpx

    try:
        await coro
    except httpx.HTTPStatusError as exc:
        return exc.response.status_code
    return 200
