"""Worker processes that make a study's figures and documents side by side.

matplotlib draws one figure at a time in a process (its rcParams are global, its drawing is not thread-safe),
a figure costs a few tenths of a second of text layout and rendering, and a study draws five to eight; the Word
report and the workbook then cost a few tenths each. On a machine with more than one core these are done by a
few long-lived worker processes, each with matplotlib and the makers already imported:

    warm()                    start the workers now (they import in the background), so a study does not wait
    run(fn, jobs)             [fn(*job) for job in jobs], in the workers when there are several jobs and workers,
                              in this process otherwise; the results come back in the order of the jobs

``AQUASCOPE_DELIVERABLE_WORKERS`` sets the number of workers (``0``: everything in this process); the default is
the number of cores, at most four, and none on a single core.

A worker is ``python -m aquascope_core.deliverables.worker_main``, a plain child process that reads jobs from
its stdin and answers on its stdout (not ``multiprocessing``: its ``spawn`` would run the caller's script again
in every worker when the script has no ``if __name__ == "__main__"`` guard). A worker leaves when its stdin
closes, so it never outlives the process that started it, killed or not; a worker that dies is replaced and
the job it held is done in this process.
"""

from __future__ import annotations

import atexit
import logging
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from typing import Any, Callable, Sequence

__all__ = ["worker_count", "warm", "run", "shutdown", "pid", "pids", "ENV", "WorkerFailed"]

log = logging.getLogger(__name__)

ENV = "AQUASCOPE_DELIVERABLE_WORKERS"
MAX_WORKERS = 4
_HEADER = struct.Struct("!Q")


class WorkerFailed(RuntimeError):
    """A worker process ended or answered garbage: the job is done in the calling process instead."""


def worker_count() -> int:
    """How many worker processes make figures and documents (0: all in this process)."""
    raw = os.environ.get(ENV, "").strip()
    if raw:
        try:
            n = int(raw)
        except ValueError:
            log.warning("%s=%r is not a whole number; the figures are drawn in this process", ENV, raw)
            return 0
        return max(0, min(n, 16))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 0 if cores < 2 else min(cores, MAX_WORKERS)


def send(stream: Any, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def receive(stream: Any) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError("the stream closed")
    (size,) = _HEADER.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the stream closed inside a message")
    return pickle.loads(data)


class _Worker:
    def __init__(self) -> None:
        env = dict(os.environ)
        # the worker imports what this process imports, from where this process found it
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if isinstance(p, str) and p)
        env[ENV] = "0"  # a worker does its jobs itself, never through workers of its own
        env["AQUASCOPE_WORKER_PARENT"] = str(os.getpid())  # the worker leaves when this process is gone
        self.proc = subprocess.Popen([sys.executable, "-m", "aquascope_core.deliverables.worker_main"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, close_fds=True)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        try:
            send(self.proc.stdin, (f"{fn.__module__}:{fn.__qualname__}", args))
            status, value = receive(self.proc.stdout)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError) as exc:
            self.close()
            raise WorkerFailed(f"figure worker {self.proc.pid} failed: {exc}") from exc
        if status != "ok":
            raise WorkerFailed(f"figure worker {self.proc.pid}: {value}")
        return value

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


_idle: "queue.Queue[_Worker]" = queue.Queue()
_all: list[_Worker] = []
_owner: int | None = None
_lock = threading.Lock()


def _ensure(n: int) -> None:
    """Have ``n`` live workers (started, not necessarily ready: they finish importing on their own)."""
    global _owner
    with _lock:
        if _owner != os.getpid():  # a forked copy of this module: the workers belong to the parent
            _all.clear()
            while not _idle.empty():
                _idle.get_nowait()
            _owner = os.getpid()
        for w in [w for w in _all if not w.alive()]:
            _all.remove(w)
        while len(_all) < n:
            w = _Worker()
            _all.append(w)
            _idle.put(w)


def pid() -> int:
    """The id of the process this runs in (which worker did a job)."""
    return os.getpid()


def pids() -> list[int]:
    """The process ids of this process's live workers."""
    with _lock:
        return [w.proc.pid for w in _all if w.alive()] if _owner == os.getpid() else []


def warm() -> None:
    """Start the workers (no-op with fewer than two); returns at once, they import in the background."""
    n = worker_count()
    if n < 2:
        return
    try:
        _ensure(n)
    except OSError as exc:
        log.info("figure workers not started: %s", exc)


def _one(fn: Callable[..., Any], job: tuple[Any, ...]) -> Any:
    w = _idle.get()
    try:
        result = w.call(fn, job)
    except WorkerFailed as exc:
        log.warning("%s; doing it in this process", exc)
        return fn(*job)
    finally:
        if w.alive():
            _idle.put(w)
        else:
            try:
                _ensure(worker_count())
            except OSError:
                pass
    return result


def run(fn: Callable[..., Any], jobs: Sequence[Sequence[Any]]) -> list[Any]:
    """``[fn(*job) for job in jobs]``, done by the workers when it pays; results in the order of ``jobs``.

    ``fn`` is a module-level function of this package, its arguments and result picklable; it should return
    what went wrong rather than raise it.
    """
    jobs = [tuple(j) for j in jobs]
    n = worker_count()
    if len(jobs) < 2 or n < 2:
        return [fn(*job) for job in jobs]
    try:
        _ensure(n)
    except OSError as exc:
        log.info("figure workers not started (%s): drawing in this process", exc)
        return [fn(*job) for job in jobs]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(n, len(jobs)), thread_name_prefix="aquascope-figures") as ex:
        return list(ex.map(lambda job: _one(fn, job), jobs))


def shutdown() -> None:
    """Stop the workers (they are started again when next needed)."""
    with _lock:
        workers = list(_all) if _owner == os.getpid() else []
        _all.clear()
        while not _idle.empty():
            _idle.get_nowait()
    for w in workers:
        w.close()


atexit.register(shutdown)
