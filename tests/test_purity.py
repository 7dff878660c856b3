"""The layers stay clean: the engine never pulls in the graph, the roles or the model library."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_importing_all_of_aquascope_core_leaves_langgraph_langchain_litellm_out():
    found = _run("""
        import importlib, pkgutil, sys
        import aquascope_core
        for m in pkgutil.walk_packages(aquascope_core.__path__, "aquascope_core."):
            importlib.import_module(m.name)
        print(",".join(n for n in ("langgraph", "langchain_core", "litellm", "roles", "graphs") if n in sys.modules))
    """)
    assert found == ""


def test_importing_roles_leaves_langgraph_and_litellm_out():
    found = _run("""
        import sys, roles, roles.model, roles.specialists
        print(",".join(n for n in ("langgraph", "litellm") if n in sys.modules))
    """)
    assert found == ""


def test_a_keyless_study_never_imports_litellm_and_opens_no_socket(tmp_path):
    found = _run(f"""
        import os, socket, sys
        os.environ["AQUASCOPE_HOME"] = {str(tmp_path)!r}

        def refuse(*a, **k):
            raise AssertionError("a socket was opened")

        socket.socket.connect = refuse
        socket.create_connection = refuse
        from graphs.studio import Studio
        with Studio(41.10, -74.96) as s:
            if s.say("Design flow for a road crossing, 100-year").kind == "data_request":
                s.say("continue without")  # the basin characteristics the crew asks for: gone on without them
            r = s.approve()
            assert r.kind == "report", r
        print("litellm" if "litellm" in sys.modules else "")
    """)
    assert found == ""
