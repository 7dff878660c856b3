"""Large uploads held once, by reference: the workspace (and so every checkpoint) keeps their digest, not their bytes.

An upload's original up to :data:`INLINE_MAX_BYTES` stays inline in its table entry (a workspace.json is then
self-contained). A larger one is written once to ``$AQUASCOPE_HOME/uploads/<sha256[:2]>/<sha256>`` and the entry
keeps ``{"encoding": "ref", "stored": "uploads/...", "sha256", "bytes", ...}``: a 22 MB hourly record is one
22 MB file, not a copy in every checkpoint (a SQLite saver stores the whole state at every step) nor in the
workspace.json. :func:`original_content` gives the bytes back, checked against the digest.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Mapping

from aquascope_core.errors import DataNotFoundError

__all__ = ["INLINE_MAX_BYTES", "hold", "original_content", "store_root"]

INLINE_MAX_BYTES = 1_000_000


def store_root() -> Path:
    from aquascope_core.workspace import aquascope_home

    return aquascope_home() / "uploads"


def _payload(original: Mapping[str, Any]) -> bytes:
    import base64

    if original.get("encoding") == "base64":
        return base64.b64decode(original["data"])
    return str(original["data"]).encode("utf-8")


def hold(original: Mapping[str, Any]) -> dict[str, Any]:
    """``original`` as the workspace keeps it: inline when small, else by reference to the stored bytes."""
    if original.get("encoding") == "ref" or "data" not in original:
        return dict(original)
    data = _payload(original)
    if len(data) <= INLINE_MAX_BYTES:
        return dict(original)
    digest = hashlib.sha256(data).hexdigest()
    rel = Path("uploads") / digest[:2] / digest
    path = store_root() / digest[:2] / digest
    if not path.is_file():  # content-addressed: written once, whatever the number of studies using it
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    held = {k: v for k, v in original.items() if k != "data"}
    return {**held, "encoding": "ref", "stored_encoding": original.get("encoding"), "stored": rel.as_posix(),
            "stored_sha256": digest}


def original_content(original: Mapping[str, Any]) -> bytes | str:
    """The upload as ingest takes it again: bytes, or the CSV text of a DataFrame upload."""
    import base64

    enc = original.get("encoding")
    if enc == "ref":
        digest = str(original.get("stored_sha256") or "")
        path = store_root() / digest[:2] / digest
        try:
            data = path.read_bytes()
        except OSError:
            raise DataNotFoundError(f"the upload {original.get('filename') or 'of ' + str(original.get('bytes')) + ' bytes'} is held "
                                    f"by reference at {path}, which is missing", argument="tables", value=digest,
                                    recovery="Point AQUASCOPE_HOME at the folder the study was started with, or add "
                                             "the table again.") from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise DataNotFoundError(f"the stored upload at {path} does not match its digest", argument="tables",
                                    value=digest, recovery="Add the table again.")
        return data.decode("utf-8") if original.get("stored_encoding") == "csv-of-dataframe" else data
    if enc == "base64":
        return base64.b64decode(original["data"])
    return original["data"] if enc == "csv-of-dataframe" else str(original["data"]).encode("utf-8")
