"""A cProfile in every thread of this process, merged: LangGraph runs the crew's nodes in worker threads, which a
profiler of the main thread alone does not see. Used by the ``profile_*`` scripts; nothing is asserted.

    with ThreadProfiles() as tp:
        ...                      # the work to profile
    print(tp.report(sort="cumulative", top=40, save=None))

Each thread that runs Python after the block starts gets its own ``cProfile.Profile`` on its first call
(``threading.setprofile``); ``cpu_s`` and ``wall_s`` are the process's CPU seconds (user + sys) and the wall clock
of the block. The profiler inflates the seconds; the shares are the figure.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import resource
import threading
import time


def cpu() -> float:
    """This process's CPU seconds so far (user + sys)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class ThreadProfiles:
    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self._lock = threading.Lock()
        self.cpu_s = self.wall_s = 0.0

    def _start_in_thread(self, frame, event, arg) -> None:  # a new thread's first call: its own profiler
        prof = cProfile.Profile()
        with self._lock:
            self.profiles.append(prof)
        prof.enable()  # replaces this hook for the thread

    def __enter__(self) -> "ThreadProfiles":
        threading.setprofile(self._start_in_thread)
        main = cProfile.Profile()
        self.profiles.append(main)
        self._cpu0, self._wall0 = cpu(), time.perf_counter()
        main.enable()
        return self

    def __exit__(self, *exc) -> None:
        self.profiles[0].disable()
        threading.setprofile(None)
        self.cpu_s, self.wall_s = cpu() - self._cpu0, time.perf_counter() - self._wall0
        for p in self.profiles[1:]:
            try:
                p.disable()
            except Exception:  # noqa: BLE001 - a profiler of a finished thread
                pass

    def report(self, *, sort: str = "cumulative", top: int = 40, save: str | None = None) -> str:
        """The merged profiles as pstats prints them (sorted by ``sort``, the first ``top`` rows); written to
        ``save`` in pstats format when given."""
        buf = io.StringIO()
        stats = pstats.Stats(self.profiles[0], stream=buf)
        for p in self.profiles[1:]:
            try:
                stats.add(p)
            except TypeError:  # a thread that never recorded a call
                pass
        if save:
            stats.dump_stats(save)
        stats.sort_stats(sort).print_stats(top)
        return buf.getvalue()
