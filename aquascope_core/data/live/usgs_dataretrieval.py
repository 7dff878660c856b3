"""Daily values through the USGS's own client, ``dataretrieval`` (optional: ``pip install aquascope[usgs]``).

``dataretrieval.waterdata.get_daily`` asks the same ``daily`` collection; its rows are turned back into
the collection's features so :class:`~aquascope_core.data.live.usgs.UsgsLive` reads both engines the same
way. The client follows the pages itself and has its own retries; it is pointed at the adapter's base URL
(``configure(WaterdataConfiguration(base_url=..., api_version=...))``), so a mirror or a stand-in on
127.0.0.1 serves both engines alike. It asks the period as ``time=<start>/<end>`` (the property the service's
documentation lists as taking an interval), where the default engine sends ``datetime=``, the form of the recorded
requests (see :mod:`~aquascope_core.data.live.usgs`).
"""

from __future__ import annotations

from typing import Any

from aquascope_core.data.live.http import refusal_recovery
from aquascope_core.errors import DataNotFoundError, SourceError
from aquascope_core.result import utc_now

__all__ = ["daily_features", "available"]


def available() -> bool:
    try:
        import dataretrieval.waterdata  # noqa: F401
    except ImportError:
        return False
    return True


def _split(base_url: str) -> tuple[str, str]:
    """(root, version) of ``<root>/ogcapi/<version>``."""
    root, sep, version = base_url.rstrip("/").rpartition("/ogcapi/")
    if not sep:
        raise SourceError(f"usgs_live: the base URL {base_url!r} does not end in /ogcapi/<version>")
    return root, version


def daily_features(base_url: str, site: str, lo: str, hi: str) -> tuple[list[dict[str, Any]], str, str]:
    """(features, accessed, url) of the daily discharge means of ``site``, read by ``dataretrieval``."""
    if not available():
        raise SourceError("usgs_live: engine='dataretrieval' needs the dataretrieval package",
                          recovery="pip install 'aquascope[usgs]' (or dataretrieval>=1.4), or use the default engine.")
    import dataretrieval
    from dataretrieval import waterdata
    from dataretrieval.waterdata.configuration import WaterdataConfiguration

    root, version = _split(base_url)
    try:
        with dataretrieval.configure(WaterdataConfiguration(base_url=root, api_version=version)):
            frame, _ = waterdata.get_daily(monitoring_location_id=f"USGS-{site}", parameter_code="00060",
                                           statistic_id="00003", time=f"{lo}/{hi}", skip_geometry=True)
    except Exception as exc:  # noqa: BLE001 - the client's error tree is its own; one clear sentence here
        status = getattr(exc, "status_code", None)  # the client's errors carry the HTTP status and whether to retry
        if status == 404 or (status is None and "404" in str(exc)):
            raise DataNotFoundError(f"usgs_live (dataretrieval): daily discharge at USGS-{site} not found") from None
        refused = isinstance(status, int) and 400 <= status < 500 and status != 429 and not getattr(exc, "retryable", False)
        raise SourceError(f"usgs_live (dataretrieval): daily discharge at USGS-{site} failed: {exc}",
                          recovery=refusal_recovery(status) if refused else None) from None
    accessed = utc_now()
    feats = []
    for row in frame.to_dict("records"):
        props = {k: row.get(k) for k in ("monitoring_location_id", "parameter_code", "statistic_id", "unit_of_measure",
                                          "approval_status", "qualifier")}
        t = row.get("time")
        props["time"] = str(t.date()) if hasattr(t, "date") else str(t)[:10]
        props["value"] = None if row.get("value") is None or row.get("value") != row.get("value") else str(row["value"])
        q = props.get("qualifier")
        props["qualifier"] = None if q is None or (isinstance(q, float) and q != q) else q
        if isinstance(props.get("approval_status"), float):
            props["approval_status"] = None
        feats.append({"type": "Feature", "properties": props})
    return feats, accessed, f"{base_url}/collections/daily/items"
