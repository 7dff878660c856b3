"""The HTTP layer of the live sources: the opt-in gate, timeouts, retries, a polite User-Agent, a disk cache.

Live mode is on only when BOTH the caller asks for it (``live=True``) AND the environment sets
``AQUASCOPE_LIVE=1``. Otherwise :meth:`LiveHttp.get_json` raises :class:`SourceError` before any
socket is opened; a cached answer is not served either, so "off" means off.

Requests retry on 429 and 5xx answers and on timeouts and connection errors, with exponential
backoff (``backoff_s * 2**attempt``), honouring ``Retry-After`` (seconds or an HTTP date) up to
``max_wait_s``; a longer ``Retry-After`` (the USGS sends whole seconds, e.g. 2619, once a key's quota is
spent, as its own client's maintainers note) ends the request at once with the wait named, not a sleep. Successful JSON answers are cached on disk under ``$AQUASCOPE_HOME/cache/<source>/``
(default ``~/.aquascope/cache``), keyed by the URL and its parameters, with the time they were
retrieved; that time is the ``accessed`` of the provenance row.

A 4xx other than 404 and 429 is a refusal and is not retried: the message quotes the service's reason (a JSON
``reason``/``description``/``message`` with its ``code``, or an HTML page's title and heading, as the recorded
answers in tests/core/data/live/fixtures have them) and the request, and the recovery says what to change.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import logging
import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Mapping

import httpx

from aquascope_core import __version__
from aquascope_core.errors import DataNotFoundError, SourceError
from aquascope_core.result import utc_now

__all__ = ["LiveHttp", "live_enabled", "cache_root", "refusal_recovery", "USER_AGENT", "LIVE_ENV"]

logger = logging.getLogger(__name__)

LIVE_ENV = "AQUASCOPE_LIVE"
USER_AGENT = f"aquascope/{__version__} (hydrology study engine; python-httpx)"
DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=60.0, write=10.0, pool=10.0)


def live_enabled(live: bool) -> bool:
    """True only when the caller passed ``live=True`` and ``AQUASCOPE_LIVE=1`` is set."""
    return bool(live) and os.environ.get(LIVE_ENV, "").strip() == "1"


def cache_root() -> Path:
    """``$AQUASCOPE_HOME/cache`` (default ``~/.aquascope/cache``)."""
    home = os.environ.get("AQUASCOPE_HOME")
    return (Path(home) if home else Path.home() / ".aquascope") / "cache"


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class LiveHttp:
    """GET JSON from one service, politely, with retries and a cache.

    Parameters
    ----------
    source : the live source's name (used in messages and as the cache folder).
    live : the caller's opt-in; see :func:`live_enabled`.
    client : an ``httpx.Client`` to use (tests inject one with ``httpx.MockTransport``).
    transport : an ``httpx`` transport for the client built here (when ``client`` is not given).
    cache_dir : where answers are cached (default ``cache_root() / source``); ``use_cache=False`` turns it off.
    max_age_s : how old a cached answer may be before it is fetched again (default one week).
    sleep : how to wait between retries (tests pass a recorder).
    """

    def __init__(self, source: str, *, live: bool = False, client: httpx.Client | None = None,
                 transport: httpx.BaseTransport | None = None, timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
                 retries: int = 3, backoff_s: float = 1.0, max_wait_s: float = 60.0,
                 cache_dir: str | Path | None = None, use_cache: bool = True, max_age_s: float = 7 * 86400.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.source = source
        self.live = live
        self._client = client
        self._transport = transport
        self.timeout = timeout
        self.retries = int(retries)
        self.backoff_s = float(backoff_s)
        self.max_wait_s = float(max_wait_s)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.use_cache = use_cache
        self.max_age_s = max_age_s
        self.sleep = sleep

    # -- plumbing

    def _check_enabled(self) -> None:
        if not live_enabled(self.live):
            raise SourceError(
                f"live source {self.source!r} is off: live mode needs live=True from the caller AND the "
                f"environment variable {LIVE_ENV}=1",
                recovery="Run offline on the embedded catalogue, or enable live mode as the message says.")

    def client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(transport=self._transport, timeout=self.timeout,
                                        headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
                                        follow_redirects=True)
        return self._client

    def _cache_path(self, url: str, params: Mapping[str, Any] | None) -> Path:
        key = json.dumps({"url": url, "params": sorted((str(k), str(v)) for k, v in (params or {}).items())})
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return (self.cache_dir or cache_root() / self.source) / f"{digest}.json"

    def _cached(self, path: Path) -> dict[str, Any] | None:
        if not self.use_cache or not path.exists():
            return None
        if self.max_age_s is not None and time.time() - path.stat().st_mtime > self.max_age_s:
            return None
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            logger.warning("ignoring unreadable cache file %s", path)
            return None

    def _store(self, path: Path, entry: dict[str, Any]) -> None:
        if not self.use_cache:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(entry))
            tmp.replace(path)
        except OSError as exc:  # a cache that cannot be written is not a failed request
            logger.warning("cannot write the cache %s: %s", path, exc)

    # -- the one public call

    def get_json(self, url: str, params: Mapping[str, Any] | None = None, *, what: str,
                 check: Callable[[Any], Any] | None = None) -> tuple[Any, str]:
        """(decoded JSON, accessed time) of GET ``url``; ``what`` names the request in messages.

        ``check(body)`` validates the answer's shape (raising :class:`SourceError`) before it is
        cached, so a malformed answer is never served again from the cache.
        Raises :class:`DataNotFoundError` on 404 (the service says it is not there) and
        :class:`SourceError` on anything else that fails (network, status, malformed JSON).
        """
        def decode(response: httpx.Response) -> Any:
            try:
                return response.json()
            except ValueError:
                raise SourceError(f"{self.source}: {what} returned malformed JSON "
                                  f"(starts {response.text[:60]!r})") from None

        return self._get(url, params, what=what, decode=decode, check=check)

    def get_text(self, url: str, params: Mapping[str, Any] | None = None, *, what: str,
                 check: Callable[[str], Any] | None = None) -> tuple[str, str]:
        """(text, accessed time) of GET ``url`` (a tab-separated RDB file, say); as :meth:`get_json`."""
        return self._get(url, params, what=what, decode=lambda r: r.text, check=check)

    def _get(self, url: str, params: Mapping[str, Any] | None, *, what: str, decode: Callable[[httpx.Response], Any],
             check: Callable[[Any], Any] | None) -> tuple[Any, str]:
        self._check_enabled()
        path = self._cache_path(url, params)
        hit = self._cached(path)
        if hit is not None:
            logger.debug("cache hit for %s %s", self.source, what)
            return hit["body"], hit["accessed"]
        attempt = 0
        while True:
            try:
                # no params= for a link the service wrote: httpx would drop its query (the paging cursor)
                response = self.client().get(url, params=dict(params)) if params else self.client().get(url)
            except httpx.TimeoutException as exc:
                failure = f"timed out ({type(exc).__name__})"
                wait = None
            except httpx.TransportError as exc:
                failure = f"could not connect ({type(exc).__name__}: {exc})"
                wait = None
            else:
                status = response.status_code
                if status == 200:
                    break
                if status == 404:
                    raise DataNotFoundError(f"{self.source}: {what} not found (HTTP 404 from {response.request.url.host})"
                                            + (f": {_reason(response)}" if response.content else ""),
                                            recovery="Check the station id, or list stations near the site.")
                if status != 429 and status < 500 and response.text.lstrip().startswith("No sites/data found"):
                    # NWISWeb's own "no data" answer (fixtures/nwis_no_sites_data_found.txt), sent with a 4xx by
                    # some of its services: an empty result, not a refusal
                    raise DataNotFoundError(f"{self.source}: {what}: no data (HTTP {status}: "
                                            f"{response.text.strip()[:120]!r})",
                                            recovery="Check the station id and the period, or list stations near the "
                                                     "site.")
                if status != 429 and status < 500:
                    raise SourceError(f"{self.source}: {what} refused with HTTP {status}: {_reason(response)} "
                                      f"(request: {response.request.url})", recovery=refusal_recovery(status))
                failure = f"HTTP {status}" + (f" ({_reason(response)})" if response.content else "")
                wait = _retry_after(response)
                if wait is not None and wait > self.max_wait_s:  # the USGS asks for tens of minutes once a key's quota is spent
                    raise SourceError(f"{self.source}: {what}: {failure}; the service asks to wait {wait:.0f} s "
                                      f"(about {wait / 60:.0f} min) before the next request, longer than the "
                                      f"{self.max_wait_s:.0f} s this run waits",
                                      recovery="Try again after that time, use an API key with a larger quota, or run "
                                               "offline on the records already held (aquascope data).")
            if attempt >= self.retries:
                raise SourceError(f"{self.source}: {what} failed after {attempt + 1} attempt(s): {failure}",
                                  recovery="Try again later (the service may be rate-limiting or down), or run offline "
                                           "on the records already held (aquascope data).")
            delay = min(self.max_wait_s, wait if wait is not None else self.backoff_s * 2 ** attempt)
            logger.info("%s: %s %s; retrying in %.1f s", self.source, what, failure, delay)
            self.sleep(delay)
            attempt += 1
        body = decode(response)
        if check is not None:
            check(body)
        accessed = utc_now()
        self._store(path, {"url": str(response.request.url), "accessed": accessed, "body": body})
        return body, accessed


def refusal_recovery(status: int) -> str:
    """What to do about a 4xx other than 404/429: the service's reason (in the message) names what it refused."""
    if status == 403:
        return ("The service refused the query; the USGS does so when a query exceeds its limits or the API key is "
                "missing, expired or revoked: ask for fewer sites or a shorter period, or check the key.")
    return ("The service refused the query as sent; its reason is quoted in the message. Change what it names "
            "(a date outside its range, a station id, a variable or parameter it does not know) and try again; if the "
            "query is right, the service's rules have changed: run offline on the records already held "
            "(aquascope data) and report the message.")


def _html_text(fragment: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)).strip()


def _reason(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:  # an HTML page (a gateway's 502/504, an application server's error report): title and heading
        text = response.text
        title = re.search(r"<title>(.*?)</title>", text, re.I | re.S)
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", text, re.I | re.S)
        parts = [p for p in (_html_text(title.group(1)) if title else "", _html_text(heading.group(1)) if heading else "")
                 if p]
        if len(parts) == 2 and parts[1].startswith(parts[0]):  # "502 Bad Gateway" twice says it once
            parts = parts[1:]
        return ": ".join(parts)[:300] if parts else _html_text(text)[:200]
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict):  # the API gateway's {"error": {"code", "message"}}
            body = inner
        for key in ("reason", "description", "message", "detail", "error"):
            if isinstance(body.get(key), str):
                code = body.get("code")
                return (f"{code}: " if isinstance(code, str) else "") + body[key][:300]
    return str(body)[:300]
