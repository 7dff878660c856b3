"""Registry rows for the water_quality methods (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

METHODS: list[MethodPrecondition] = []
