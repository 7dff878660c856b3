"""A deliverables worker: ``python -m aquascope_core.deliverables.worker_main`` (started by ``workers``).

It imports matplotlib and the figure makers, draws one small figure so fonts and caches are loaded, then
answers jobs ``(\"module:function\", args)`` read from stdin with ``(\"ok\", result)`` or ``(\"error\", text)``
on stdout until stdin closes. Only functions of this package are called.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any


def _resolve(name: str) -> Any:
    module, _, attr = str(name).partition(":")
    if not module.startswith("aquascope_core.") or not attr or "." in attr:
        raise ValueError(f"not a function of this package: {name!r}")
    return getattr(importlib.import_module(module), attr)


def _warm() -> None:
    """Import what the jobs need and use it once (fonts, caches, the Word template): the figures first, the
    documents' libraries after (a missing one is reported by the job that needs it)."""
    from aquascope_core.deliverables import figures, style  # noqa: F401

    with style.house_style():
        fig, ax = style.new_figure()
        ax.plot([0, 1], [0, 1], label="x")
        ax.set_xlabel("warm (-)")
        style.save(fig)
    for module, first_use in (("aquascope_core.deliverables.report_docx", None),
                              ("aquascope_core.deliverables.workbook", None),
                              ("docx", "Document"), ("openpyxl", "Workbook")):
        try:
            mod = importlib.import_module(module)
            if first_use:
                getattr(mod, first_use)()
        except ImportError:
            pass


def _leave_with_parent(poll_s: float = 0.2, parent: int | None = None) -> None:
    """Exit as soon as the process that started this worker is gone (a SIGKILL closes no pipe for a worker busy
    drawing, and a pipe another process inherited may stay open): a daemon thread polls the parent's pid."""
    import os
    import threading
    import time

    parent = parent or int(os.environ.get("AQUASCOPE_WORKER_PARENT") or os.getppid())

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def main() -> int:
    return serve(sys.stdin.buffer, sys.stdout.buffer)


def serve(stdin: Any, stdout: Any, parent: int | None = None) -> int:
    """Answer the jobs read from ``stdin`` on ``stdout`` until ``stdin`` closes or ``parent`` is gone (a worker
    forked by ``workers.fork`` passes its parent's pid; a started one reads it from its environment)."""
    from aquascope_core.deliverables.workers import receive, send

    _leave_with_parent(parent=parent)
    sys.stdout = sys.stderr  # a stray print must not corrupt the answers
    _warm()
    while True:
        try:
            name, args = receive(stdin)
        except EOFError:
            return 0
        try:
            answer = ("ok", _resolve(name)(*args))
        except Exception as exc:  # noqa: BLE001 - reported to the caller, which does the job itself
            answer = ("error", f"{type(exc).__name__}: {exc}")
        send(stdout, answer)


if __name__ == "__main__":
    sys.exit(main())
