"""The description of one catalogue tool (see aquascope_core.catalogue).

Kept apart from the catalogue so a tool module can declare its SPECS without importing the
catalogue (which imports every tool module).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping

__all__ = ["ToolSpec", "Kind", "RUNTIME_ARGUMENTS"]

Kind = Literal["site", "station", "frame", "weather", "recon", "table", "none"]

# Arguments every tool may take that the runtime supplies and a plan never names.
RUNTIME_ARGUMENTS = ("data",)


@dataclass(frozen=True)
class ToolSpec:
    id: str
    purpose: str
    kind: Kind
    function: str  # "module:function"
    yields: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    gates: tuple[dict[str, Any], ...] = ()
    figures: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    citation: str = ""
    arguments: Mapping[str, str] = field(default_factory=dict)  # name -> description

    def load(self) -> Callable[..., Any]:
        mod, _, name = self.function.partition(":")
        return getattr(importlib.import_module(mod), name)

    def schema(self) -> dict[str, Any]:
        """The argument schema: name -> {type, required, default, description}."""
        from aquascope_core.catalogue import schema

        return schema(self.id)

    def to_dict(self, *, with_schema: bool = True) -> dict[str, Any]:
        out = {
            "id": self.id, "purpose": self.purpose, "kind": self.kind, "yields": list(self.yields),
            "methods": list(self.methods), "gates": [dict(g) for g in self.gates], "figures": list(self.figures),
            "tables": list(self.tables), "citation": self.citation,
        }
        if with_schema:
            sch = self.schema()
            out["arguments"] = sch
            out["required"] = [k for k, v in sch.items() if v["required"]]
        return out
