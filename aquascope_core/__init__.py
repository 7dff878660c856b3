"""aquascope_core: the deterministic engine of aquascope.

Pure: numpy, scipy, pandas, pyyaml and httpx. It never imports the roles, the graphs,
langgraph, langchain or litellm. The public entry points are imported lazily so that
``import aquascope_core`` stays cheap (the CLI starts from it).
"""

from __future__ import annotations

__version__ = "0.1.0"

_LAZY = {
    "assess_site": ("aquascope_core.recon", "assess_site"),
    "describe_catchment": ("aquascope_core.recon", "describe_catchment"),
    "run_study": ("aquascope_core.runner", "run_study"),
    "Study": ("aquascope_core.study", "Study"),
    "Workspace": ("aquascope_core.workspace", "Workspace"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        mod, attr = _LAZY[name]
        return getattr(importlib.import_module(mod), attr)
    raise AttributeError(f"module 'aquascope_core' has no attribute {name!r}")
