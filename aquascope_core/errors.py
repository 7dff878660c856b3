"""The one exception tree of aquascope.

::

    AquascopeError
    ├── InputError (also ValueError)        an argument the caller can fix
    │   ├── InsufficientDataError           too few values, all equal, too short a record
    │   └── UnitError                       a unit missing or not convertible
    ├── DataNotFoundError (also LookupError) a station, variable, period or dataset that is not there
    ├── SourceError                         a live source failed (network, HTTP status, malformed answer)
    ├── MethodNotDefensibleError            the registry refuses a method at this site
    ├── StudyError                          a study or plan that cannot be run as written
    │   └── PlanValidationError             validate_plan found errors (they are listed)
    ├── PlaybookError                       a playbook that does not load or does not validate
    ├── DeclinedError                       the crew declines the problem, with the sentence it prints
    └── ModelError                          a model call failed in a way the keyless path cannot absorb

Every message names the argument, the value seen and what would be valid, so the
caller can fix it without reading the source. At the MCP boundary
:func:`as_tool_error` turns any of them into ``{"error", "tool", "recovery"}``.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AquascopeError",
    "InputError",
    "InsufficientDataError",
    "UnitError",
    "DataNotFoundError",
    "SourceError",
    "MethodNotDefensibleError",
    "StudyError",
    "PlanValidationError",
    "PlaybookError",
    "DeclinedError",
    "ModelError",
    "as_tool_error",
]


class AquascopeError(Exception):
    """Base of every error aquascope raises on purpose.

    ``recovery`` is a short instruction for the caller (what to do next);
    ``argument`` and ``value`` name what was wrong when there is one culprit.
    """

    default_recovery = "Check the arguments against the tool's description and try again."

    def __init__(
        self,
        message: str,
        *,
        argument: str | None = None,
        value: Any = None,
        recovery: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.argument = argument
        self.value = value
        self.recovery = recovery or self.default_recovery

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.message, "type": type(self).__name__, "recovery": self.recovery}
        if self.argument is not None:
            out["argument"] = self.argument
        return out


class InputError(AquascopeError, ValueError):
    """An argument value the caller can fix."""

    @classmethod
    def bad_value(cls, argument: str, value: Any, valid: str, *, recovery: str | None = None) -> "InputError":
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        return cls(f"{argument}={shown} is not valid: {valid}.", argument=argument, value=value, recovery=recovery)


class InsufficientDataError(InputError):
    """Too few values, all-equal values or too short a record for the method."""

    default_recovery = "Provide a longer record, or choose a method that needs fewer values."


class UnitError(InputError):
    """A unit that is missing, unknown or not convertible."""

    default_recovery = "State the unit of the values (for example 'm3/s', 'mm/d', 'cfs')."


class DataNotFoundError(AquascopeError, LookupError):
    """A station, variable, period or dataset that does not exist in the source asked."""

    default_recovery = "List what the source holds (stations near the point, describe the station) and ask for that."


class SourceError(AquascopeError):
    """A live data source failed: network, HTTP status or a malformed answer."""

    default_recovery = "Retry later, or run offline on the embedded catalogue (live sources are optional)."


class MethodNotDefensibleError(AquascopeError):
    """The method registry refuses the method at this site."""

    default_recovery = "Use a method the sufficiency table calls defensible, or bring more data."


class StudyError(AquascopeError):
    """A study or plan that cannot be run as written."""

    default_recovery = "Fix the step named in the message, or re-plan from the playbook."


class PlanValidationError(StudyError):
    """validate_plan found errors; ``errors`` lists them, one per step."""

    def __init__(self, errors: list[str], **kwargs: Any) -> None:
        self.errors = list(errors)
        head = "; ".join(self.errors[:5])
        more = f" (and {len(self.errors) - 5} more)" if len(self.errors) > 5 else ""
        super().__init__(f"The plan does not validate: {head}{more}", **kwargs)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["errors"] = self.errors
        return out


class PlaybookError(AquascopeError):
    """A playbook that does not load or does not validate."""

    default_recovery = "Run `aquascope playbooks list` for the playbooks that exist."


class DeclinedError(AquascopeError):
    """The crew declines the problem; the message is the sentence it prints."""

    default_recovery = "Bring the data the message names, or change the question."


class ModelError(AquascopeError):
    """A model call failed in a way the keyless behaviour cannot absorb (a missing key, say)."""

    default_recovery = "Run keyless (no --model), or set the provider's API key named in the message."


def as_tool_error(exc: BaseException, tool: str) -> dict[str, Any]:
    """The JSON shape an error takes at a tool boundary (MCP): ``{"error", "tool", "recovery"}``."""
    if isinstance(exc, AquascopeError):
        out = exc.to_dict()
    else:
        out = {
            "error": f"{type(exc).__name__}: {exc}",
            "type": type(exc).__name__,
            "recovery": "This is a defect in aquascope; report it with the arguments that caused it.",
        }
    out["tool"] = tool
    return out
