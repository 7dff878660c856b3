"""The bundle: one zip with every file of the study, a README.txt and a manifest of SHA-256 sums."""

from __future__ import annotations

import hashlib
import io
import json
import time
import zipfile
from typing import Any, Mapping

__all__ = ["render_bundle", "MANIFEST", "README"]

MANIFEST = "manifest.json"
README = "README.txt"


def _readme(ws: Mapping[str, Any], report: Mapping[str, Any], files: Mapping[str, str]) -> str:
    lines = [str(report.get("title") or "Study report"), "=" * len(str(report.get("title") or "Study report")), "",
             f"Study {ws.get('id', '')}.", "", "What is in this folder:", ""]
    lines += [f"  {name:<34} {what}" for name, what in files.items()]
    lines += ["", "Replay the study (no model, no network):  aquascope run study.yaml",
              "Re-run it in a notebook:                   open notebook.ipynb here and run all cells",
              f"Write these files again:                  aquascope export {ws.get('id', '')} --out DIR",
              "", f"Every file's SHA-256 is in {MANIFEST}.", ""]
    return "\n".join(lines)


def render_bundle(ws: Mapping[str, Any], report: Mapping[str, Any], files: Mapping[str, tuple[bytes, str]]) -> bytes:
    """The zip as bytes. ``files`` maps a name (``figures/fig-01.png``) to (bytes, what it is)."""
    readme = _readme(ws, report, {n: what for n, (_, what) in files.items()}).encode("utf-8")
    everything = {**{n: data for n, (data, _) in files.items()}, README: readme}
    manifest = {"study": ws.get("id"), "files": [
        {"name": n, "sha256": hashlib.sha256(b).hexdigest(), "size": len(b)} for n, b in everything.items()]}
    stamp = time.gmtime()[:6]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in everything.items():
            # PNG, XLSX and DOCX are compressed already
            kind = zipfile.ZIP_STORED if name.endswith((".png", ".xlsx", ".docx")) else zipfile.ZIP_DEFLATED
            zf.writestr(zipfile.ZipInfo(name, date_time=stamp), data, compress_type=kind)
        zf.writestr(zipfile.ZipInfo(MANIFEST, date_time=stamp),
                    json.dumps(manifest, indent=2), compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()
