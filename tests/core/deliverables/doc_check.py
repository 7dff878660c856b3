"""The checks a reviewer makes on a study's documents once LibreOffice has printed them to PDF.

Each check takes the study folder (report.docx, report.html, workbook.xlsx, workspace.json and the PDFs that
:func:`to_pdf` wrote beside them under ``pdf/``) and returns a list of problems (empty when it passes), each
naming the file and page. ``python tests/core/deliverables/doc_check.py DIR...`` prints them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable

PDFS = {"report.docx": "report-docx", "report.html": "report-html", "workbook.xlsx": "workbook"}
# a result path: a step id with a field, a payload path with an index, three dotted identifiers
PATH = re.compile(r"\bs\d+\.[a-z_]\w*|\b[a-z_]+\[-?\d+\]|\b[a-z_]+\.[a-z_]\w*\.[a-z_]\w*(?:\[\d+\])?")
URL = re.compile(r"https?://\S+|\b[\w.-]+\.(?:gov|org|com|int|ca|de|uk)(?:/\S*)?")
NUMBER = re.compile(r"(?<![\w.])[-\u2212]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])[-\u2212]?\d+(?:\.\d+)?(?![\w,])")
FOOTER = re.compile(r"·\s*page \d+ of \d+|^Page \d+$|^\s*$")


def soffice() -> str | None:
    return shutil.which("soffice") or shutil.which("libreoffice")


def to_pdf(folders: Iterable[Path]) -> None:
    """Every study's report.docx, report.html and workbook.xlsx to PDF: the Word reports and workbooks in one
    LibreOffice call, the HTML reports in a second one through Writer's HTML import (Writer/Web's own PDF export
    drops the first line of a page and leaves page 1 empty, whatever the HTML; a browser prints it as Writer does)."""
    folders = list(folders)
    if not folders:
        return
    tmp = folders[0].parent / "pdf-out"
    tmp.mkdir(exist_ok=True)
    jobs: dict[bool, list[Path]] = {False: [], True: []}
    for d in folders:
        (d / "pdf").mkdir(exist_ok=True)
        for name, stem in PDFS.items():
            src = tmp / f"{d.name}--{stem}{Path(name).suffix}"
            shutil.copy(d / name, src)
            jobs[name.endswith(".html")].append(src)
    profile = f"-env:UserInstallation=file://{tmp / 'profile'}"
    for html, files in jobs.items():
        extra = ["--infilter=HTML (StarWriter)", "--convert-to", "pdf:writer_pdf_Export"] if html else \
            ["--convert-to", "pdf"]
        subprocess.run([soffice(), "--headless", "--norestore", profile, *extra, "--outdir", str(tmp),
                        *map(str, files)], check=True, capture_output=True, timeout=900)
        for src in files:
            folder, stem = src.stem.split("--")
            shutil.move(str(tmp / f"{src.stem}.pdf"), str(next(d for d in folders if d.name == folder) / "pdf" /
                                                          f"{stem}.pdf"))
            src.unlink()


def pages(pdf: Path) -> list[str]:
    out = subprocess.run(["pdftotext", "-raw", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return out.split("\f")[:-1] if out.endswith("\f") else out.split("\f")


def _image_pages(pdf: Path) -> set[int]:
    out = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
    return {int(line.split()[0]) for line in out.splitlines()[2:] if line.split()}


def empty_pages(d: Path) -> list[str]:
    problems = []
    for stem in PDFS.values():
        pdf = d / "pdf" / f"{stem}.pdf"
        imgs = _image_pages(pdf)
        for i, text in enumerate(pages(pdf), 1):
            body = [ln for ln in text.splitlines() if not FOOTER.search(ln.strip())]
            if not any(ln.strip() for ln in body) and i not in imgs:
                problems.append(f"{stem}.pdf page {i} has no text or picture")
    return problems


def _report(d: Path) -> dict[str, Any]:
    return json.loads((d / "workspace.json").read_text())


def _tables(report: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def walk(s: dict[str, Any]) -> None:
        out.extend(s.get("tables") or [])
        for sub in s.get("subsections") or []:
            walk(sub)

    for s in report.get("sections") or []:
        walk(s)
    return out


def _words(text: str) -> list[str]:
    return [w.strip(".,;:()[]\"'“”") for w in text.split()]


def split_header_words(d: Path) -> list[str]:
    """A table header word broken across lines shows in the PDF's word stream as two pieces that join into it."""
    report = _report(d)["report"]
    heads = {w for t in _tables(report) for c in t.get("columns") or [] for w in _words(str(c)) if len(w) >= 3}
    problems = []
    for stem in ("report-docx", "report-html"):
        for i, text in enumerate(pages(d / "pdf" / f"{stem}.pdf"), 1):
            ws = _words(text)
            for a, b in zip(ws, ws[1:]):
                joined = a + b
                if joined in heads and a not in heads and not a.endswith("-"):
                    problems.append(f"{stem}.pdf page {i}: header word {joined!r} split as {a!r} {b!r}")
    return sorted(set(problems))


def _found_in_reports(d: Path, pattern: re.Pattern, what: str) -> list[str]:
    """Every match of ``pattern`` in the Word and HTML reports' PDF text (URLs left out), by page."""
    problems = []
    for stem in ("report-docx", "report-html"):
        for i, text in enumerate(pages(d / "pdf" / f"{stem}.pdf"), 1):
            for m in pattern.finditer(URL.sub(" ", text)):
                problems.append(f"{stem}.pdf page {i}: {what} {m.group(0)!r}")
    return problems


def result_paths(d: Path) -> list[str]:
    return _found_in_reports(d, PATH, "result path")


SCI = re.compile(r"(?<![\w.-])[-\u2212]?\d+(?:\.\d+)?[eE][+-]\d+\b")


def sci_notation(d: Path) -> list[str]:
    """No number in the report written as a program prints it (1.89e+04): a reader writes 18,900."""
    return _found_in_reports(d, SCI, "number in scientific notation")


def _step(s: str) -> float:
    core = s.replace(",", "").lstrip("-\u2212")
    if "." in core:
        return 10.0 ** -len(core.split(".")[1])
    return 10.0 ** (len(core) - len(core.rstrip("0"))) if core.strip("0") else 1.0


def _digits(s: str) -> str:
    core = s.replace(",", "").lstrip("-\u2212")
    return core.replace(".", "").lstrip("0").rstrip("0" if "." not in core else "") or "0"


def _sig(x: float, n: int) -> float:
    import math

    return round(x, n - 1 - int(math.floor(math.log10(abs(x))))) if x else 0.0


def _units(cell: str) -> tuple[str | None, str | None]:
    """The unit a key number is stated in and the unit of its bracketed restatement: ``"ft3/s (179 m3/s)"``."""
    m = re.match(r"\s*([^\s(]+)(?:\s*\(\s*[-\u2212\d.,]+\s+([^\s)]+)\s*\))?", cell or "")
    return (m.group(1), m.group(2)) if m else (None, None)


def precision(d: Path) -> list[str]:
    """Every key number printed one way wherever it appears: no version of it at more significant figures than
    the key-numbers table's, or at as many written otherwise (a rounder version, a class limit, is another number).
    Under the units rule a key number is restated in brackets in the other unit (``4,880 ft3/s (138 m3/s)``): that
    restatement, the key number converted (report_units.convert) at the table's significant figures, is the same
    number; the converted value at any other precision is a second precision."""
    from aquascope_core.report_units import FACTORS, convert

    ws = _report(d)
    summary = next((s for s in ws["report"].get("sections") or [] if s.get("id") == "summary"), {})
    table = next((t for t in summary.get("tables") or [] if t.get("caption") == "Key numbers"), {"rows": []})
    cols = [str(c) for c in table.get("columns") or []]
    ucol = cols.index("Unit") if "Unit" in cols else None
    shown_as = {r[0]: str(r[1]) for r in table["rows"]}
    unit_of = {r[0]: str(r[ucol]) if ucol is not None and ucol < len(r) and r[ucol] else "" for r in table["rows"]}
    keys = [f for f in (ws.get("findings") or {}).get("findings") or [] if f.get("label") in shown_as]
    problems = []
    for stem in ("report-docx", "report-html"):
        text = "\n".join(pages(d / "pdf" / f"{stem}.pdf"))
        text = re.sub(r"\b(19|20)\d\d-\d\d(-\d\d)?\b", " ", URL.sub(" ", text))
        numbers = [m.group(0).replace("\u2212", "-") for m in NUMBER.finditer(text)]
        for f in keys:
            v, canon = f.get("value"), shown_as[f["label"]].replace("\u2212", "-")
            if not isinstance(v, float) or v == 0:
                continue
            first, other = _units(unit_of[f["label"]])
            unit = f.get("unit")
            if unit in FACTORS and first in FACTORS and FACTORS[unit][0] == FACTORS[first][0]:
                v = convert(v, unit, first)  # the value as the table states it
            # the bracketed restatement in the other unit, at the table's significant figures (the report rounds to
            # three; a trailing zero of an integer may be one of them: "6,300" is 2 or 3 figures)
            restated: tuple[float, set[str]] | None = None
            if first in FACTORS and other in FACTORS and FACTORS[first][0] == FACTORS[other][0]:
                w = convert(v, first, other)
                n_min = len(_digits(canon))
                n_max = max(n_min, min(3, len(canon.replace(",", "").lstrip("-").split(".")[0].lstrip("0"))))
                restated = (w, {f"{_sig(w, n):.10g}" for n in range(n_min, n_max + 1)})
            bad = set()
            for s in numbers:
                t = float(s.replace(",", ""))
                if restated and abs(t - restated[0]) <= 0.01 * abs(restated[0]) and \
                        abs(t - restated[0]) <= _step(s) / 2 + 1e-12:
                    if f"{t:.10g}" not in restated[1] and len(_digits(s)) >= len(_digits(canon)):
                        bad.add(s)  # the restatement at another precision than the key number's
                    continue
                if abs(t - v) > 0.01 * abs(v) or abs(t - v) > _step(s) / 2 + 1e-12:
                    continue  # not this number
                more = len(_digits(s)) > len(_digits(canon))
                other_form = len(_digits(s)) == len(_digits(canon)) and s.replace(",", "") != canon.replace(",", "")
                if more or other_form:
                    bad.add(s)
            if bad:
                problems.append(f"{stem}.pdf: {f['label']} ({canon}) also printed as {sorted(bad)}")
    return problems


def package_authors(d: Path) -> list[str]:
    """A package that carried a record is named only after 'obtained via', never as its author."""
    ws = _report(d)
    pkgs = set()
    for r in ((ws.get("run") or {}).get("results") or {}).values():
        for src in ((r.get("payload") or {}).get("meta") or {}).get("sources") or []:
            for field in ("dataset", "citation"):
                pkgs |= set(re.findall(r"pypi:([\w.-]+)==", str(src.get(field) or "")))
                pkgs |= set(re.findall(r"packaged in ([\w.-]+) \d", str(src.get(field) or "")))
    problems = []
    for ref in ws["report"].get("references") or []:
        for p in pkgs:
            for m in re.finditer(rf"\b{re.escape(p)}\b", ref):
                if "obtained via" not in ref[max(0, m.start() - 40):m.start()].lower():
                    problems.append(f"reference names {p} other than as 'obtained via': {ref[:90]}")
    return problems


def signoff_and_glossary(d: Path) -> list[str]:
    problems = []
    for stem in ("report-docx", "report-html"):
        text = "\n".join(pages(d / "pdf" / f"{stem}.pdf"))
        for need in ("Sign-off", "Prepared by", "Checked by", "Approved by", "Glossary"):
            if need not in text:
                problems.append(f"{stem}.pdf lacks {need!r}")
    return problems


def sheets_one_page_wide(d: Path) -> list[str]:
    """Every printed page of the workbook starts with the first column's header of a sheet (its header row repeats
    on each page): a page that starts anywhere else holds columns cut off a sheet wider than the page."""
    import openpyxl

    wb = openpyxl.load_workbook(d / "workbook.xlsx", read_only=True)
    firsts = set()
    for sh in wb.worksheets:
        head = next(sh.iter_rows(min_row=1, max_row=1, values_only=True), ())
        if head and head[0] not in (None, ""):
            firsts.add(_words(str(head[0]))[0])
    problems = []
    for i, text in enumerate(pages(d / "pdf" / "workbook.pdf"), 1):
        words = [w for w in _words(text) if w]
        if words and words[0] not in firsts:
            problems.append(f"workbook.pdf page {i} starts with {' '.join(words[:4])!r}: not a sheet's first column "
                            "(a sheet wider than the page, or its header row not repeated)")
    return problems


CHECKS = (empty_pages, split_header_words, result_paths, sci_notation, precision, package_authors,
          signoff_and_glossary, sheets_one_page_wide)


def check(d: Path) -> dict[str, list[str]]:
    return {c.__name__: c(d) for c in CHECKS}


if __name__ == "__main__":
    dirs = [Path(a) for a in sys.argv[1:]]
    if not all((x / "pdf" / "workbook.pdf").exists() for x in dirs):
        to_pdf(dirs)
    for x in dirs:
        for name, probs in check(x).items():
            print(f"{x.name} {name}: {len(probs)}")
            for p in probs[:12]:
                print("   ", p)
