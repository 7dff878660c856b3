"""Registry rows for the rainfall_runoff methods (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

METHODS: list[MethodPrecondition] = []
