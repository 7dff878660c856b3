"""The adapter's own client and the USGS's `dataretrieval` (1.4) read the same recorded answers the same way.

Both engines ask a real HTTP server on 127.0.0.1 that answers the recorded `daily` pages (fixtures/README.md):
the paged envelope with its `next` cursor, then the page of USGS-05427718 with its two provisional values."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

from aquascope_core.data.live.usgs import UsgsLive
from recorded_answers import FIXTURES

pytest.importorskip("dataretrieval.waterdata")
pytestmark = [pytest.mark.server]


@pytest.fixture
def recorded_service():
    seen: list[str] = []
    first = json.loads((FIXTURES / "usgs_ogc_daily_page_with_next.json").read_text())
    second = (FIXTURES / "usgs_ogc_daily_05427718.json").read_text()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):  # noqa: N802
            seen.append(self.path)
            u = urlparse(self.path)
            q = parse_qs(u.query)
            # the recorded page (v0) writes its next link under /ogcapi/v0, which the service still answers
            if u.path not in ("/ogcapi/v1/collections/daily/items", "/ogcapi/v0/collections/daily/items"):
                body, code = b"", 404
            elif "cursor" in q:
                body, code = second.encode(), 200
            else:  # the recorded first page, its next link pointed here (cursor kept as sent)
                page = json.loads(json.dumps(first))
                for link in page["links"]:
                    link["href"] = link["href"].replace("https://api.waterdata.usgs.gov", root)
                body, code = json.dumps(page).encode(), 200
            self.send_response(code)
            self.send_header("Content-Type", "application/geo+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    root = f"http://127.0.0.1:{server.server_address[1]}"
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield root, seen
    finally:
        server.shutdown()
        server.server_close()
        t.join(timeout=5)


def test_both_engines_read_the_recorded_pages_alike(recorded_service, live_env, tmp_path):
    root, seen = recorded_service
    out = {}
    for engine in ("aquascope", "dataretrieval"):
        src = UsgsLive(live=True, engine=engine, base_url=f"{root}/ogcapi/v1", cache_dir=tmp_path / engine, retries=0)
        out[engine] = src.fetch_series("05427718", "discharge", start="2025-10-01", end="2026-09-30")
    ours, theirs = out["aquascope"], out["dataretrieval"]
    assert ours.tolist() == theirs.tolist() == [20.2, 27.1]
    assert list(ours.index) == list(theirs.index)
    for key in ("unit", "approval_status", "approval_runs", "provisional", "dropped"):
        assert ours.attrs[key] == theirs.attrs[key], key
    assert theirs.attrs["provenance"]["engine"] == "dataretrieval" and ours.attrs["provisional"]["n"] == 2
    # both followed the recorded next link with its cursor
    assert sum("cursor=MDAwMDAwMGMtN2VmNC00N2U0LWE1NzctNjc3ZmU5NzNjZmIw" in p for p in seen) == 2


def test_the_opt_in_holds_for_the_dataretrieval_engine_too(monkeypatch, tmp_path):
    monkeypatch.delenv("AQUASCOPE_LIVE", raising=False)
    src = UsgsLive(live=True, engine="dataretrieval", base_url="http://127.0.0.1:9/ogcapi/v1", cache_dir=tmp_path)
    from aquascope_core.errors import SourceError

    with pytest.raises(SourceError, match="AQUASCOPE_LIVE=1"):
        src.fetch_series("05427718", "discharge")


@pytest.fixture
def refusing_service():
    """A server on 127.0.0.1 answering every request with the recorded 400 (fixtures/README.md), its
    ``{"code", "description"}`` envelope rebuilt from the message the USGS client printed."""
    status, rest = (FIXTURES / "usgs_ogc_400_unknown_properties.txt").read_text().strip().split(": ", 1)
    code, description = rest.split(". ", 1)
    body = json.dumps({"code": code, "description": description.rstrip(".")}).encode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):  # noqa: N802
            self.send_response(int(status))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        t.join(timeout=5)


def test_both_engines_surface_the_recorded_400(refusing_service, live_env, tmp_path):
    """The USGS client turns the rebuilt body back into exactly the line it printed from the live service (so the
    rebuild matches what was sent as far as the client reads it); the adapter's own client names the same code
    and description, the request, and what to do."""
    from aquascope_core.errors import SourceError

    printed = (FIXTURES / "usgs_ogc_400_unknown_properties.txt").read_text().strip()
    messages = {}
    for engine in ("aquascope", "dataretrieval"):
        src = UsgsLive(live=True, engine=engine, base_url=f"{refusing_service}/ogcapi/v1", cache_dir=tmp_path / engine,
                       retries=0)
        with pytest.raises(SourceError) as err:
            src.fetch_series("05427718", "discharge", start="2025-10-01", end="2025-10-31")
        messages[engine] = err.value
    assert printed + "." in str(messages["dataretrieval"]), str(messages["dataretrieval"])
    ours = messages["aquascope"]
    assert "refused with HTTP 400: InvalidParameterValue: unknown properties specified (request: " in str(ours)
    assert "Change what it names" in ours.recovery and messages["dataretrieval"].recovery == ours.recovery


class _OneAnswer:
    """A server on 127.0.0.1 that answers every request with one recorded body and status."""

    def __init__(self, name: str, status: int) -> None:
        body = (FIXTURES / name).read_bytes()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):  # noqa: N802
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "_OneAnswer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def test_both_engines_on_the_recorded_v1_two_series_answer_and_raw_400(live_env, tmp_path):
    """Byte-for-byte v1 answers (fixtures/README.md): USGS 02196000's two series for the same 11 days read alike by
    both engines (the USGS client drops ``time_series_id``; the equal values are kept once a day either way), and
    the raw ``InvalidQuery`` 400 body reaches the user through both."""
    from aquascope_core.errors import SourceError

    out = {}
    with _OneAnswer("usgs_ogc_v1_daily_02196000_two_series.json", 200) as srv:
        for engine in ("aquascope", "dataretrieval"):
            src = UsgsLive(live=True, engine=engine, base_url=f"{srv.url}/ogcapi/v1", cache_dir=tmp_path / engine,
                           retries=0)
            out[engine] = src.fetch_series("02196000", "discharge", start="1999-12-30", end="2000-01-09")
    assert out["aquascope"].tolist() == out["dataretrieval"].tolist() and len(out["aquascope"]) == 11
    assert list(out["aquascope"].index) == list(out["dataretrieval"].index)
    assert sum(out["aquascope"].attrs["time_series"].values()) == sum(out["dataretrieval"].attrs["time_series"].values())
    description = "At least one requested property wasn't found"
    with _OneAnswer("usgs_ogc_v1_400_unknown_property.json", 400) as srv:
        for engine in ("aquascope", "dataretrieval"):
            src = UsgsLive(live=True, engine=engine, base_url=f"{srv.url}/ogcapi/v1", cache_dir=tmp_path / f"e{engine}",
                           retries=0)
            with pytest.raises(SourceError) as err:
                src.fetch_series("02196000", "discharge", start="1999-12-30", end="2000-01-09")
            assert "InvalidQuery" in str(err.value) and description in str(err.value), (engine, str(err.value))
