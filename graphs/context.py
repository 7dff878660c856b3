"""Run-scoped settings of the crew (not checkpointed): the model per role, where artifacts go, live data.

Each field falls back to an environment variable so a hosted graph is configured without code:
AQUASCOPE_MODEL, AQUASCOPE_MODEL_<ROLE> (e.g. AQUASCOPE_MODEL_AUTHOR), AQUASCOPE_MODEL_TIMEOUT, AQUASCOPE_MODEL_RETRIES,
AQUASCOPE_MODEL_BASE_URL, AQUASCOPE_FORMATS (the report formats the Author writes, e.g. "md,html"),
AQUASCOPE_ARTIFACTS (a folder), AQUASCOPE_LIVE=1. Without a model every role runs keyless.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CrewContext"]


@dataclass
class CrewContext:
    model: Any = None  # a litellm model string, or a roles.model.Model (a ScriptedModel in tests)
    role_models: dict[str, Any] = field(default_factory=dict)
    # where the model's key lives, never the key: "env:NAME" (an environment variable, read at call time) or a
    # "mem:" reference the Python API made (roles.model.hold_key); no field of a run's context holds a key
    key_ref: str | None = None
    base_url: str | None = None
    timeout: float | None = None
    artifact_root: str | None = None
    live: bool | None = None
    data: Any = None  # a DataContext to use as is (tests inject live clients this way); default: from the workspace
    live_options: dict[str, Any] = field(default_factory=dict)  # per live source: {"usgs_live": {"client": ...}}
    max_replans: int = 1  # fallback branches the Analysts may plan per failed step
    site: Any = None  # {lat, lon} for a run started from a chat message that does not name the site
    formats: Any = None  # the report formats the Author writes ("md,html,docx,..."); default all (AQUASCOPE_FORMATS)

    def __post_init__(self) -> None:
        # A run's context is recorded with the run (the LangGraph server stores it), so it names a key, never holds
        # one: "env:NAME" (an environment variable) or a "mem:" reference the Python API made (roles.model.hold_key).
        from roles.model import is_key_reference

        if self.key_ref and not is_key_reference(self.key_ref):
            from aquascope_core.errors import InputError

            raise InputError("context.key_ref holds a key; the run context is recorded with the run, so give the "
                             "name of an environment variable instead, for example \"env:OPENAI_API_KEY\"",
                             argument="context.key_ref", value="[redacted]",
                             recovery="Set the key in the server's environment and pass \"env:NAME\".")

    @classmethod
    def from_mapping(cls, ctx: Any) -> "CrewContext":
        """The context a hosted run was given as JSON (unknown keys refused, by name)."""
        from aquascope_core.errors import InputError

        known = set(cls.__dataclass_fields__)
        unknown = set(ctx) - known
        if unknown:
            raise InputError.bad_value("context", sorted(unknown), "keys among " + ", ".join(sorted(known)))
        return cls(**dict(ctx))

    def model_for(self, role: str) -> Any:
        """The model a role uses, or None (keyless)."""
        from roles.model import DEFAULT_RETRIES, DEFAULT_TIMEOUT_S, make_model

        chosen = (self.role_models.get(role) or os.environ.get(f"AQUASCOPE_MODEL_{role.upper()}")
                  or self.model or os.environ.get("AQUASCOPE_MODEL") or None)
        if not chosen:
            return None
        timeout = self.timeout or float(os.environ.get("AQUASCOPE_MODEL_TIMEOUT") or DEFAULT_TIMEOUT_S)
        key = self.key_ref  # a reference, never a key
        retries = int(os.environ.get("AQUASCOPE_MODEL_RETRIES") or DEFAULT_RETRIES)
        return make_model(chosen, api_key=key, base_url=self.base_url or os.environ.get("AQUASCOPE_MODEL_BASE_URL"),
                          timeout=timeout, retries=retries)

    def formats_wanted(self) -> Any:
        """The formats the host asks the Author for (None: every format)."""
        return self.formats or os.environ.get("AQUASCOPE_FORMATS") or None

    def live_enabled(self) -> bool:
        return bool(self.live) if self.live is not None else os.environ.get("AQUASCOPE_LIVE") == "1"

    def data_for(self, ws: Any) -> Any:
        """The DataContext a role reads through: the injected one, or one built from the workspace's tables, once
        per run for the same tables and site (the Scout and the Analysts read the same uploads; parsing a
        10,000-row table is a good part of a study)."""
        if self.data is not None:
            return self.data
        import json

        from aquascope_core.tools.context import DataContext

        live = bool(ws.request.get("live"))
        key = json.dumps([ws.tables, ws.site, live], sort_keys=True, default=str)
        built = self.__dict__.setdefault("_built_data", {})  # not a field: never part of a recorded context
        if key not in built:
            built.clear()
            built[key] = DataContext.from_tables(ws.tables, ws.site, live=live, live_options=self.live_options)
        return built[key]
