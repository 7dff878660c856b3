"""The one place a model is called: litellm, imported lazily, behind :class:`Model`.

A role asks ``model.call_json(ws, role, system, payload, validate)``: one stateless call with
compact JSON in and one JSON object out. The reply is parsed and checked by ``validate`` (our
schema, not the model's word); a reply that fails gets one repair call with the error; after
that the method returns ``None`` and the role's keyless behaviour takes over. Tokens and cost
go into the workspace's ledger per role (an unknown model's cost is ``None``, not a crash).

A model that cannot be reached, does not answer in time, refuses the call or keeps replying with
something unusable costs each role one bounded attempt (``timeout`` seconds, ``retries`` extra tries:
AQUASCOPE_MODEL_TIMEOUT, AQUASCOPE_MODEL_RETRIES); the role then runs keyless and a ``model_fallback`` event
says which role fell back and why, so the report can say it. A reply holding anything shaped like a
credential is rejected like malformed JSON, and no key is ever written into an event, a message or an error.

Keys reach the model from the provider's environment variable, or from ``api_key="env:NAME"`` (a reference to
an environment variable, safe to keep in configuration); a key given as such is used in memory only.

Tests use :class:`ScriptedModel`, which replays a list of replies and records the calls.
"""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any, Callable, Mapping, Sequence

from aquascope_core.errors import ModelError
from aquascope_core.textsafe import looks_like_credential, redact

__all__ = ["Model", "ScriptedModel", "make_model", "parse_json_object", "resolve_key", "hold_key", "is_key_reference",
           "spent_usd", "over_budget", "DEFAULT_TIMEOUT_S", "DEFAULT_RETRIES"]

log = logging.getLogger(__name__)

Validator = Callable[[Any], Any]  # returns the cleaned value or raises ValueError with what is wrong

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_RETRIES = 0
KEY_REFERENCE = "env:"
_HELD: dict[str, str] = {}  # keys handed to this process by the Python API, by reference; never serialised


def hold_key(api_key: str) -> str:
    """A reference (``mem:...``) to a key kept in this process's memory only, for contexts that are recorded."""
    import hashlib

    ref = "mem:" + hashlib.sha256(api_key.encode()).hexdigest()[:16]
    _HELD[ref] = api_key
    return ref


def is_key_reference(api_key: Any) -> bool:
    return isinstance(api_key, str) and api_key.startswith((KEY_REFERENCE, "mem:"))


def resolve_key(api_key: str | None) -> str | None:
    """The key itself: ``env:NAME`` is read from the environment (a ModelError naming NAME when unset),
    ``mem:...`` from the keys this process holds (:func:`hold_key`)."""
    if isinstance(api_key, str) and api_key.startswith("mem:"):
        if api_key not in _HELD:
            raise ModelError("api_key refers to a key this process does not hold", argument="api_key", value=api_key,
                             recovery="Pass the key again (Studio(api_key=...)) or name an environment variable.")
        return _HELD[api_key]
    if isinstance(api_key, str) and api_key.startswith(KEY_REFERENCE):
        name = api_key[len(KEY_REFERENCE):].strip()
        value = os.environ.get(name)
        if not name or not value:
            raise ModelError(f"api_key names the environment variable {name!r}, which is not set",
                             argument="api_key", value=api_key, recovery=f"export {name or 'NAME'}=... before the run")
        return value
    return api_key


def _strings(obj: Any):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v)


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
                 timeout: float = DEFAULT_TIMEOUT_S, retries: int = DEFAULT_RETRIES, temperature: float = 0.2,
                 max_tokens: int = 2000) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ModelError("model must be a litellm model string such as 'openai/gpt-4o-mini'", argument="model",
                             value=model)
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = float(timeout)
        self.retries = max(0, int(retries))
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
        key = resolve_key(self.api_key)
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages), "timeout": self.timeout,
                                  "temperature": self.temperature, "max_tokens": self.max_tokens,
                                  "num_retries": self.retries, "max_retries": self.retries}
        if key:
            kwargs["api_key"] = key
        if self.base_url:
            kwargs["base_url"] = self.base_url
        try:
            resp = litellm.completion(**kwargs)
        except Exception as exc:  # noqa: BLE001 - litellm raises many types; a missing OpenAI key is an InternalServerError
            raise self._explain(exc, key) from None
        text = resp.choices[0].message.content or ""
        usage = getattr(resp, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=resp))
        except Exception:  # noqa: BLE001 - an unknown model's price is unknown
            cost = None
        return text, {"prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0,
                      "completion_tokens": getattr(usage, "completion_tokens", 0) or 0, "cost_usd": cost}

    def _explain(self, exc: BaseException, key: str | None) -> ModelError:
        """One sentence on why the call failed, with any key blanked out."""
        text = redact(str(exc), secrets=(key,) if key else ())[:300]
        name = type(exc).__name__
        low = f"{name} {text}".lower()
        where = f" at {self.base_url}" if self.base_url else ""
        if "timeout" in low or "timed out" in low:
            return ModelError(f"The model {self.model}{where} did not answer within {self.timeout:g} s ({name})",
                              recovery="Raise AQUASCOPE_MODEL_TIMEOUT, check the endpoint, or run keyless.")
        if "connect" in low or "connection" in low or "unreachable" in low or "refused" in low:
            return ModelError(f"The model {self.model}{where} is unreachable ({name}: {text[:160]})",
                              recovery="Check that the endpoint runs and is reachable, or run keyless.")
        if "api_key" in low or "api key" in low or "authentication" in low or "401" in low:
            return ModelError(f"The model {self.model} refused the call for want of a valid API key: {text[:200]}",
                              recovery="Set the provider's API key, or run keyless.")
        return ModelError(f"The model call failed ({name}): {text}")

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
                self._fall_back(ws, role, exc.message)
                return None
            if ws is not None:
                ws.charge(role, model=self.model, **usage)
            try:
                obj = parse_json_object(text)
                if any(looks_like_credential(x) for x in _strings(obj)):
                    raise ValueError("the reply holds text shaped like a credential (a key, token or password)")
                return validate(obj) if validate else obj
            except ValueError as exc:
                if ws is not None:
                    ws.event(role, "model_reply_rejected", {"attempt": attempt, "reason": redact(str(exc))})
                if attempt == 2:
                    self._fall_back(ws, role, f"its reply could not be used after one repair ({redact(str(exc))[:160]})")
                    return None
                messages += [{"role": "assistant", "content": text},
                             {"role": "user", "content": f"That reply cannot be used: {exc}. Reply with one JSON object "
                                                         "that fixes exactly this, nothing else."}]
        return None


    def _fall_back(self, ws: Any, role: str, reason: str) -> None:
        log.warning("%s runs keyless: %s", role, reason)
        if ws is not None:
            ws.event(role, "model_fallback", {"model": self.model, "reason": redact(reason)})
            fallbacks = list(ws.request.get("model_fallbacks") or [])
            fallbacks.append({"role": role, "reason": redact(reason)[:300]})
            ws.request = {**ws.request, "model_fallbacks": fallbacks}


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
               timeout: float = DEFAULT_TIMEOUT_S, retries: int = DEFAULT_RETRIES) -> Model | None:
    """A Model when one is asked for, else None (keyless). A key in the environment alone never switches a model on."""
    if model is None or isinstance(model, Model):
        return model
    return Model(model, api_key=api_key, base_url=base_url, timeout=timeout, retries=retries)
