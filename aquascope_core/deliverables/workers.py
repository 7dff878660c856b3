"""Worker processes that make a study's figures and documents side by side.

matplotlib draws one figure at a time in a process (its rcParams are global, its drawing is not thread-safe),
a figure costs a few tenths of a second of text layout and rendering, and a study draws five to eight; the Word
report and the workbook then cost a few tenths each. On a machine with more than one core these are done by a
few long-lived worker processes, each with matplotlib and the makers already imported:

    warm()                    start the workers now (they import in the background), so a study does not wait
    fork(1)                   fork workers from this process now, before it has a second thread (a one-shot
                              command: they import the deliverable stack on the other core while it goes on)
    serving()                 how many workers take this process's jobs (0: everything is done here)
    run(fn, jobs)             [fn(*job) for job in jobs], in the workers when there are several jobs and workers
                              (or workers forked at start), in this process otherwise; results in the order of the jobs

``AQUASCOPE_DELIVERABLE_WORKERS`` sets the number of workers started on demand (``0``: everything in this
process, unless workers were forked at start); the default is the number of cores, at most four, and none on a
single core.

A worker is ``python -m aquascope_core.deliverables.worker_main``, a plain child process that reads jobs from
its stdin and answers on its stdout (not ``multiprocessing``: its ``spawn`` would run the caller's script again
in every worker when the script has no ``if __name__ == "__main__"`` guard). A worker leaves when its stdin
closes, so it never outlives the process that started it, killed or not; a worker that dies is replaced and
the job it held is done in this process.

A forked worker (``fork``) is a copy of the calling process made before it imported anything heavy: it costs no
interpreter start and none of the imports both sides share, and it serves the same protocol over two pipes. It
leaves when its job pipe closes or its parent is gone, like the others; it is never replaced (forking a process
that has threads is unsafe), so when it dies the jobs are done in this process.
"""

from __future__ import annotations

import atexit
import logging
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Sequence

__all__ = ["worker_count", "warm", "fork", "forked", "serving", "run", "shutdown", "pid", "pids", "ENV",
           "WorkerFailed"]

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
    n = cores()
    return 0 if n < 2 else min(n, MAX_WORKERS)


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


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
    """A worker started as ``python -m aquascope_core.deliverables.worker_main``."""

    forked = False

    def __init__(self) -> None:
        env = dict(os.environ)
        # the worker imports what this process imports, from where this process found it
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if isinstance(p, str) and p)
        env[ENV] = "0"  # a worker does its jobs itself, never through workers of its own
        env["AQUASCOPE_WORKER_PARENT"] = str(os.getpid())  # the worker leaves when this process is gone
        self.proc = subprocess.Popen([sys.executable, "-m", "aquascope_core.deliverables.worker_main"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, close_fds=True)
        self.pid, self.to_worker, self.from_worker = self.proc.pid, self.proc.stdin, self.proc.stdout

    def alive(self) -> bool:
        return self.proc.poll() is None

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        try:
            send(self.to_worker, (f"{fn.__module__}:{fn.__qualname__}", args))
            status, value = receive(self.from_worker)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError) as exc:
            self.close()
            raise WorkerFailed(f"figure worker {self.pid} failed: {exc}") from exc
        if status != "ok":
            raise WorkerFailed(f"figure worker {self.pid}: {value}")
        return value

    def _end_input(self) -> None:
        try:
            if self.to_worker:
                self.to_worker.close()
        except OSError:
            pass

    def close(self) -> None:
        self._end_input()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


class _Forked(_Worker):
    """A worker forked from this process (see :func:`fork`): the same protocol over two pipes."""

    forked = True

    def __init__(self, pid: int, to_worker: Any, from_worker: Any) -> None:  # noqa: D107 - no process started here
        self.pid, self.to_worker, self.from_worker = pid, to_worker, from_worker
        self.returncode: int | None = None

    def alive(self) -> bool:
        if self.returncode is None:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere
                done, status = self.pid, 0
            if done:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode is None

    def close(self) -> None:
        self._end_input()  # the worker leaves at the end of its input
        try:
            self.from_worker.close()
        except OSError:
            pass
        deadline = time.monotonic() + 5
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.005)
        if self.alive():
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.returncode = -signal.SIGKILL


_idle: "queue.Queue[_Worker]" = queue.Queue()
_all: list[_Worker] = []
_owner: int | None = None
_lock = threading.Lock()


def _adopt() -> None:
    """Under ``_lock``: in a forked copy of this module the workers belong to the parent; forget them."""
    global _owner
    if _owner != os.getpid():
        _all.clear()
        while not _idle.empty():
            _idle.get_nowait()
        _owner = os.getpid()


def _ensure(n: int) -> None:
    """Have ``n`` live workers (started, not necessarily ready: they finish importing on their own)."""
    with _lock:
        _adopt()
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
        return [w.pid for w in _all if w.alive()] if _owner == os.getpid() else []


def forked() -> int:
    """How many live workers this process forked (:func:`fork`)."""
    with _lock:
        return sum(1 for w in _all if w.forked and w.alive()) if _owner == os.getpid() else 0


def serving() -> int:
    """How many worker processes take this process's jobs: the workers it forked, else the setting when it is two
    or more (started on demand), else 0 (everything in this process)."""
    n = forked()
    if n:
        return n
    n = worker_count()
    return n if n >= 2 else 0


def fork(n: int = 1) -> list[int]:
    """Fork ``n`` workers from this process now and return their pids ([] when that is not possible).

    For a one-shot command, at its start: the workers import the deliverable stack (matplotlib, openpyxl,
    python-docx, the makers) and draw a warm-up figure on another core while this process imports the crew and
    runs the study, and every later job of this process goes to them (this process then never imports that
    stack). Only while this process has a single thread (a fork copies the calling thread alone: a lock another
    thread held would stay locked in the copy). A long-lived server uses :func:`warm` instead."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return []
    parent = os.getpid()
    with _lock:
        _adopt()
        inherited = [f.fileno() for w in _all for f in (w.to_worker, w.from_worker) if f and not f.closed]
    started = []
    for _ in range(n):
        job_r, job_w = os.pipe()
        answer_r, answer_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            child = os.fork()
        except OSError as exc:
            log.info("no worker forked: %s", exc)
            for fd in (job_r, job_w, answer_r, answer_w):
                os.close(fd)
            break
        if child == 0:
            _forked_main(job_r, answer_w, [job_w, answer_r, *inherited], parent)
        os.close(job_r)
        os.close(answer_w)
        w = _Forked(child, os.fdopen(job_w, "wb"), os.fdopen(answer_r, "rb"))
        inherited += [job_w, answer_r]
        with _lock:
            _all.append(w)
            _idle.put(w)
        started.append(child)
    return started


def _forked_main(job_r: int, answer_w: int, foreign: list[int], parent: int) -> None:
    """The forked worker's life; never returns (``os._exit``: the parent's exit handlers are not this copy's)."""
    code = 1
    try:
        global _lock
        _lock = threading.Lock()  # the parent's lock as it was at the fork; nothing of it is shared
        for fd in foreign:  # the parent's ends and other workers' pipes: a pipe held here would never close
            os.close(fd)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's; the worker leaves with it
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)  # the caller's stdout (the report) is not held open by the worker
        os.close(null)
        os.environ[ENV] = "0"  # a worker does its jobs itself, never through workers of its own
        from aquascope_core.deliverables import worker_main

        code = worker_main.serve(os.fdopen(job_r, "rb"), os.fdopen(answer_w, "wb"), parent=parent)
    except BaseException:  # noqa: BLE001 - a worker that cannot serve leaves; the parent does the jobs
        code = 1
    finally:
        os._exit(code)


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
    while True:
        try:
            w = _idle.get(timeout=0.5)
            break
        except queue.Empty:
            if not pids():  # every worker gone and none replaced (a forked one is not): do it here
                return fn(*job)
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
                _ensure(worker_count() if worker_count() >= 2 else 0)
            except OSError:
                pass
    return result


def run(fn: Callable[..., Any], jobs: Sequence[Sequence[Any]]) -> list[Any]:
    """``[fn(*job) for job in jobs]``, done by the workers when it pays; results in the order of ``jobs``.

    It pays with two jobs or more and two workers or more, and always with workers forked at start (this
    process has not imported what the jobs need; they have). ``fn`` is a module-level function of this package,
    its arguments and result picklable; it should return what went wrong rather than raise it.
    """
    jobs = [tuple(j) for j in jobs]
    n = forked()
    if not n:
        n = worker_count()
        if len(jobs) < 2 or n < 2:
            return [fn(*job) for job in jobs]
        try:
            _ensure(n)
        except OSError as exc:
            log.info("figure workers not started (%s): drawing in this process", exc)
            return [fn(*job) for job in jobs]
    if not jobs:
        return []
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(n, len(jobs)), thread_name_prefix="aquascope-figures") as ex:
        return list(ex.map(lambda job: _one(fn, job), jobs))


def shutdown() -> None:
    """Stop the workers (those started on demand are started again when next needed; forked ones are not)."""
    with _lock:
        workers = list(_all) if _owner == os.getpid() else []
        _all.clear()
        while not _idle.empty():
            _idle.get_nowait()
    for w in workers:
        w.close()


atexit.register(shutdown)
