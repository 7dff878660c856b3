"""The crew on LangGraph, and the Python API for platform teams.

    from graphs import Studio, solve, run_study, assess_site

``Studio`` is a study as a checkpointed conversation (graphs.studio); ``solve`` the headless one-call
form over the same graph (graphs.solve); ``run_study`` and ``assess_site`` the engine's (aquascope_core). Imported lazily so
``aquascope --help`` does not load langgraph.
"""

from __future__ import annotations

_LAZY = {
    "Studio": ("graphs.studio", "Studio"),
    "Reply": ("graphs.studio", "Reply"),
    "solve": ("graphs.solve", "solve"),
    "SolveResult": ("roles.team", "SolveResult"),
    "run_study": ("aquascope_core.runner", "run_study"),
    "assess_site": ("aquascope_core.recon", "assess_site"),
    "graph": ("graphs.graph", "graph"),
}

__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        mod, attr = _LAZY[name]
        return getattr(importlib.import_module(mod), attr)
    raise AttributeError(f"module 'graphs' has no attribute {name!r}")
