"""Registry rows for the drought methods (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

METHODS: list[MethodPrecondition] = []
