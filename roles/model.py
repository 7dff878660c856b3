"""The one place a model is called: litellm, imported lazily, behind :class:`Model`.

A role asks ``model.call_json(ws, role, system, payload, validate)``: one stateless call with
compact JSON in and one JSON object out. The reply is parsed and checked by ``validate`` (our
schema, not the model's word); a reply that fails gets one repair call with the error; after
that the method returns ``None`` and the role's keyless behaviour takes over. Tokens and cost
go into the workspace's ledger per role (an unknown model's cost is ``None``, not a crash).

Tests use :class:`ScriptedModel`, which replays a list of replies and records the calls.
"""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any, Callable, Mapping, Sequence

from aquascope_core.errors import ModelError

__all__ = ["Model", "ScriptedModel", "make_model", "parse_json_object", "spent_usd", "over_budget"]

log = logging.getLogger(__name__)

Validator = Callable[[Any], Any]  # returns the cleaned value or raises ValueError with what is wrong

DEFAULT_TIMEOUT_S = 60.0


def _litellm():
    """Import litellm quietly: local cost map, no debug banner on stdout (it would break MCP over stdio)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm  # noqa: PLC0415 - deliberately lazy: 2-3 s of import the keyless path never pays

    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    return litellm


def parse_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in a reply (fenced or bare); ValueError when there is none."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the reply is empty")
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    candidate = fenced.group(1) if fenced else text[text.find("{"): text.rfind("}") + 1]
    if not candidate:
        raise ValueError("the reply holds no JSON object")
    try:
        value = json.loads(candidate)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the reply is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError("the reply is JSON but not an object")
    return value


class Model:
    """A chat model reached through litellm.

    ``model`` is a litellm model string (``openai/gpt-4o-mini``, ``anthropic/claude-...``,
    ``ollama/llama3``); ``api_key``/``base_url`` override the provider's environment variables;
    ``timeout`` is explicit because litellm's own default is 6000 s.
    """

    def __init__(self, model: str, *, api_key: str | None = None, base_url: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S, temperature: float = 0.2, max_tokens: int = 2000) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ModelError("model must be a litellm model string such as 'openai/gpt-4o-mini'", argument="model",
                             value=model)
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = float(timeout)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._checked = False

    # -- the raw call -------------------------------------------------------------------------
    def check_environment(self) -> None:
        """One clear sentence naming the fix when the provider's key is missing."""
        if self._checked or self.api_key or self.base_url:
            self._checked = True
            return
        litellm = _litellm()
        try:
            env = litellm.validate_environment(model=self.model)
        except Exception as exc:  # noqa: BLE001 - an unknown provider is the user's to fix
            raise ModelError(f"litellm does not recognise the model {self.model!r}: {exc}",
                             recovery="Use a provider-prefixed model name such as 'openai/gpt-4o-mini'.") from None
        missing = list(env.get("missing_keys") or [])
        if missing:
            raise ModelError(
                f"The model {self.model} needs {', '.join(missing)} in the environment; set it, pass api_key=..., "
                "or run keyless (no model).", recovery=f"export {missing[0]}=... or omit the model")
        self._checked = True

    def complete(self, messages: Sequence[Mapping[str, str]]) -> tuple[str, dict[str, Any]]:
        """(reply text, usage {prompt_tokens, completion_tokens, cost_usd})."""
        self.check_environment()
        litellm = _litellm()
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages), "timeout": self.timeout,
                                  "temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.api_key:
            kwargs["api_key"] = self.api_key
        if self.base_url:
            kwargs["base_url"] = self.base_url
        try:
            resp = litellm.completion(**kwargs)
        except Exception as exc:  # noqa: BLE001 - litellm raises many types; a missing OpenAI key is an InternalServerError
            text = str(exc)
            if "api_key" in text.lower() or "api key" in text.lower():
                raise ModelError(f"The model {self.model} refused the call for want of an API key: {text[:200]}",
                                 recovery="Set the provider's API key, or run keyless.") from None
            raise ModelError(f"The model call failed ({type(exc).__name__}): {text[:300]}") from None
        text = resp.choices[0].message.content or ""
        usage = getattr(resp, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=resp))
        except Exception:  # noqa: BLE001 - an unknown model's price is unknown
            cost = None
        return text, {"prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0,
                      "completion_tokens": getattr(usage, "completion_tokens", 0) or 0, "cost_usd": cost}

    # -- JSON in, JSON out --------------------------------------------------------------------
    def call_json(self, ws: Any, role: str, system: str, payload: Any, validate: Validator | None = None) -> Any:
        """One call; the validated JSON object, or None when the reply cannot be used (after one repair).

        None also when the study's budget (``ws.request["max_usd"]``) is spent, or the model cannot be
        reached: the role then runs keyless, and ``ws.request`` records which role fell back and why
        (``keyless_after_budget``, ``model_fallbacks``) for the report's footer.
        """
        if ws is not None and over_budget(ws):
            request = ws.request
            roles = list(request.get("keyless_after_budget") or [])
            if role not in roles:
                ws.request = {**request, "keyless_after_budget": roles + [role]}
            ws.event(role, "budget_exhausted", {"max_usd": request.get("max_usd"), "spent_usd": spent_usd(ws)})
            return None
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": json.dumps(payload, ensure_ascii=False, default=str)}]
        for attempt in (1, 2):
            try:
                text, usage = self.complete(messages)
            except ModelError as exc:
                if ws is not None:
                    fallbacks = list(ws.request.get("model_fallbacks") or [])
                    fallbacks.append({"role": role, "reason": exc.message[:300]})
                    ws.request = {**ws.request, "model_fallbacks": fallbacks}
                    ws.event(role, "model_unavailable", {"reason": exc.message[:300]})
                return None
            if ws is not None:
                ws.charge(role, model=self.model, **usage)
            try:
                obj = parse_json_object(text)
                return validate(obj) if validate else obj
            except ValueError as exc:
                if ws is not None:
                    ws.event(role, "model_reply_rejected", {"attempt": attempt, "reason": str(exc)})
                if attempt == 2:
                    if ws is not None:
                        fallbacks = list(ws.request.get("model_fallbacks") or [])
                        fallbacks.append({"role": role, "reason": f"its reply could not be used after one repair: {exc}"[:300]})
                        ws.request = {**ws.request, "model_fallbacks": fallbacks}
                    return None
                messages += [{"role": "assistant", "content": text},
                             {"role": "user", "content": f"That reply cannot be used: {exc}. Reply with one JSON object "
                                                         "that fixes exactly this, nothing else."}]
        return None


def spent_usd(ws: Any) -> float:
    """What the study's model calls have cost so far (calls of unknown price count as 0)."""
    return float(sum((v.get("cost_usd") or 0.0) for v in (getattr(ws, "ledger", None) or {}).values()))


def over_budget(ws: Any) -> bool:
    limit = (getattr(ws, "request", None) or {}).get("max_usd")
    return limit is not None and spent_usd(ws) >= float(limit)


class ScriptedModel(Model):
    """A model that replays scripted replies in order (strings or dicts), for tests; records every call."""

    def __init__(self, replies: Sequence[Any], *, model: str = "scripted/fake", cost_usd: float | None = None) -> None:
        super().__init__(model)
        self.replies = list(replies)
        self.calls: list[list[Mapping[str, str]]] = []
        self.cost_usd = cost_usd

    def check_environment(self) -> None:
        return None

    def complete(self, messages: Sequence[Mapping[str, str]]) -> tuple[str, dict[str, Any]]:
        self.calls.append(list(messages))
        if not self.replies:
            raise ModelError("the scripted model has no replies left")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        text = reply if isinstance(reply, str) else json.dumps(reply)
        return text, {"prompt_tokens": sum(len(m["content"]) // 4 for m in messages),
                      "completion_tokens": len(text) // 4, "cost_usd": self.cost_usd}


def make_model(model: str | Model | None = None, *, api_key: str | None = None, base_url: str | None = None,
               timeout: float = DEFAULT_TIMEOUT_S) -> Model | None:
    """A Model when one is asked for, else None (keyless). A key in the environment alone never switches a model on."""
    if model is None or isinstance(model, Model):
        return model
    return Model(model, api_key=api_key, base_url=base_url, timeout=timeout)
