"""Registry rows for the trends methods (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

METHODS: list[MethodPrecondition] = []
