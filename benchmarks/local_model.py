"""llama.cpp's OpenAI-compatible server on a free loopback port, for the benchmarks that run a real small model.

    with llama_server(server_python, gguf, name="smollm2-135m", ctx=8192) as base_url:
        ...   # litellm model "openai/<name>" at base_url, any api key

``server_python`` is the python of a venv with ``llama-cpp-python[server]``; the install commands are in
bench_model_crew.py. The server is stopped when the block ends, whatever happens in it.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
import urllib.request
from typing import Iterator

__all__ = ["llama_server", "free_port"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def llama_server(server_python: str, gguf: str, *, name: str, ctx: int, start_timeout: float = 120.0) -> Iterator[str]:
    """Serve ``gguf`` as model ``name``; yields the base URL (``http://127.0.0.1:PORT/v1``) once it answers."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    server = subprocess.Popen([server_python, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1",
                               "--port", str(port), "--n_ctx", str(ctx), "--model_alias", name],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        t0 = time.monotonic()
        while True:
            try:
                urllib.request.urlopen(f"{base_url}/models", timeout=2).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() - t0 > start_timeout:
                    raise SystemExit(f"the llama.cpp server did not start within {start_timeout:.0f} s") from None
                time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
