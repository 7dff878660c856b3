"""regional figures."""

from __future__ import annotations

__all__ = ["MAKERS"]

MAKERS: list = []
