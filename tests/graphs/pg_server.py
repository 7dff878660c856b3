"""A real PostgreSQL server for the tests: initdb in a temp dir as an unprivileged user, on a free loopback
port, its socket in the same temp dir; stopped by the fixture. Skipped when the server binaries are absent."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_user(cmd: list[str], user: str | None) -> list[str]:
    if user is None:
        return cmd
    return ["runuser", "-u", user, "--", *cmd] if shutil.which("runuser") else ["su", user, "-s", "/bin/sh", "-c",
                                                                               " ".join(cmd)]


@pytest.fixture(scope="module")
def postgres_url():
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    user = None
    if os.geteuid() == 0:  # initdb refuses root: run the server as the postgres user
        try:
            pwd.getpwnam("postgres")
            user = "postgres"
        except KeyError:
            pytest.skip("running as root and there is no postgres user to run the server as")
    tmp = Path(tempfile.mkdtemp(prefix="aq-pg-"))
    data = tmp / "data"
    port = free_port()
    if user:
        shutil.chown(tmp, user=user)
    subprocess.run(_as_user([initdb, "-D", str(data), "-U", "aq", "--auth=trust", "-E", "UTF8", "--no-sync"], user),
                   check=True, capture_output=True, timeout=60)
    opts = f"-c listen_addresses=127.0.0.1 -p {port} -k {tmp} -c fsync=off"
    subprocess.run(_as_user([pg_ctl, "-D", str(data), "-o", opts, "-l", str(tmp / "log"), "-w", "-t", "30", "start"],
                            user), check=True, capture_output=True, timeout=60)
    try:
        import psycopg

        with psycopg.connect(f"postgresql://aq@127.0.0.1:{port}/postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE aquascope")
        yield f"postgresql://aq@127.0.0.1:{port}/aquascope"
    finally:
        subprocess.run(_as_user([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "-t", "30", "stop"], user),
                       capture_output=True, timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)
