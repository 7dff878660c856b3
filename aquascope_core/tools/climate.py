"""Catalogue tools for the climate family (see aquascope_core.catalogue)."""

from __future__ import annotations

from aquascope_core.toolspec import ToolSpec

__all__ = ["SPECS"]

SPECS: list[ToolSpec] = []
