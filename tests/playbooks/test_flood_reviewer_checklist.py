"""A reviewing hydrologist's checklist over every flood_risk branch, read off the report the crew writes.

For each branch (at-site, Bulletin 17C, published maxima, short record, regional, trend, declines): the headline's
quantity is the decision's, or "Not for design" says why; flows follow the units rule (ft3/s first at a U.S. site,
SI in brackets); the record period is stated one way; the skew's source is cited; no choice is handed to the client;
"Not for design" appears exactly when the rule of roles/specialists/design_use.py says (checked here from the
decision's own facts, independently of the text). And an upload of a gauge's PeakFQ files gives the embedded record's
answer and sentences.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aquascope_core.data import get_source, wymt_2022
from aquascope_core.workspace import ArtifactStore

TODAY = "2026-12-01"
FLAT_BROOK = (41.10, -74.96)
POWDER = (45.06, -105.88)       # 0.3 km from USGS 06324500, Powder River at Moorhead MT
BIG_SANDY = (36.0, -88.2)
FOX_BERLIN = (43.96875, -88.950306)
SCHUYLKILL = (39.967791, -75.188501)
ATLANTIC = (30.0, -40.0)
_CHOICE = ("adopting either", "before adopting", "choose between", "choose which", "decide which skew",
           "you may select", "at your discretion")


def _short_upload(tmp: Path) -> dict[str, Path]:
    q = get_source("usgs").fetch_series("01440000", "discharge", start="1990-10-01", end="2005-09-30")
    path = tmp / "flat_brook_1991_2005.csv"
    path.write_text("date,discharge (m3/s)\n" + "\n".join(f"{d.date()},{v}" for d, v in q.items()))
    return {path.name: path}


def _powder_files(tmp: Path, with_psf: bool) -> dict[str, Path]:
    """The study's own WATSTORE cards and .psf block of 06324500.00, as a PeakFQ user would upload them."""
    cards = [ln for ln in wymt_2022._text("peaks").splitlines() if ln[1:16].strip() == "06324500.00"]
    out = {"powder_06324500.txt": tmp / "powder_06324500.txt"}
    out["powder_06324500.txt"].write_text("\n".join(cards) + "\n")
    if with_psf:
        psf, keep = [], False
        for ln in wymt_2022._text("psf").splitlines():
            if ln.startswith("Station"):
                keep = ln.split()[1] == "06324500.00"
            if keep:
                psf.append(ln)
        out["powder_06324500.psf"] = tmp / "powder_06324500.psf"
        out["powder_06324500.psf"].write_text("\n".join(psf) + "\n")
    return out


def _run(text, site, tmp: Path, tables=None, intake=None) -> dict:
    from graphs.solve import solve

    root = tmp / "artifacts"
    res = solve(text, lat=site[0], lon=site[1], intake=intake, tables=tables or {}, artifact_root=str(root))
    store = ArtifactStore(root)
    files = {p.name: p for p in (store.export(ref, tmp / "out") for ref in res.workspace.get("artifacts") or [])}
    md = files["report.md"].read_text() if "report.md" in files else ""
    return {"ws": res.workspace, "md": md}


def _section(md: str, title: str) -> str:
    return md.split(f"## {title}", 1)[-1].split("\n## ", 1)[0] if f"## {title}" in md else ""


def _expected_not_for_design(ws: dict) -> list[str]:
    """The rule, worked from the decision's facts: record end more than 5 years before TODAY, a quantity gap,
    a result flag (outside_range / indicative / not_for_design)."""
    dec = (ws.get("findings") or {}).get("decision") or {}
    if dec.get("value") is None or ((ws.get("brief") or {}).get("intake") or {}).get("focus") == "trend":
        return []
    why = []
    end = str((dec.get("record") or {}).get("end") or "")[:4]
    if end.isdigit() and int(TODAY[:4]) - int(end) > 5:
        why.append(f"the record ends in {end}")
    if dec.get("quantity_gap"):
        why.append(dec["quantity_gap"]["why"])
    for r in ((ws.get("run") or {}).get("results") or {}).values():
        p = r.get("payload") or {}
        if r.get("status") == "ok" and (p.get("outside_range") is True or p.get("indicative") is True
                                       or p.get("not_for_design")):
            why.append("flag")
    return why


def _check(got: dict, *, us: bool, b17c: bool, trend: bool = False) -> dict:
    ws, md = got["ws"], got["md"]
    summary = _section(md, "Summary")
    dec = (ws.get("findings") or {}).get("decision") or {}
    answer = dec.get("answer") or ""
    first_page = summary.split("*Key numbers*")[0]
    # the grade legend is on every report
    assert "Grades: A," in summary
    # "Not for design" exactly when the rule says, with every reason on the first page
    why = _expected_not_for_design(ws)
    assert ("Not for design:" in first_page) == bool(why), (why, first_page[:400])
    for w in why:
        if w != "flag":
            assert w in first_page
    if trend and dec.get("value") is not None:  # the period tested is stated once
        assert len(set(re.findall(r"\b(1[89]\d\d|20\d\d) to (1[89]\d\d|20\d\d)\b", answer))) == 1, answer
    if dec.get("value") is not None and not trend:
        # the headline's quantity is the decision's (a peak), or Not for design says why
        quantity = dec.get("quantity")
        assert quantity in ("peak flow", "annual maximum flow") or (
            "the decision needs the instantaneous peak" in first_page), quantity
        # flows follow the units rule: the first flow unit of the answer is ft3/s at a U.S. site, SI in brackets
        units = re.findall(r"\b(ft3/s|m3/s|kcfs)\b", answer)
        assert units and units[0] == ("ft3/s" if us else "m3/s"), units
        if us:
            assert re.search(r"[\d,.]+ ft3/s \([\d,.]+ m3/s\)", answer), answer[:300]
            table = _section(md, "Results")
            assert "(ft3/s)" in table and "(m3/s)" in table
        # the record period is stated one way: one span in the answer, and every "ends in" year is its end
        spans = set(re.findall(r"\b(1[89]\d\d|20\d\d) to (1[89]\d\d|20\d\d)\b", answer))
        assert len(spans) == 1, spans
        end = next(iter(spans))[1]
        assert all(y == end for y in re.findall(r"ends in (\d{4})", answer)), answer
    # the grade's reason says each reason once (a record that ends too long ago is not said twice)
    reason = re.search(r"^Grade: \*\*[^*]+\*\* \((.*)\)\.$", summary, re.M)
    if reason:
        assert len(re.findall(r"ends in \d{4}", reason.group(1))) <= 1, reason.group(1)
    if b17c:
        skew = ws["run"]["results"]["s2"]["payload"]["regional_skew_used"]
        refs = _section(md, "References")
        assert "Bulletin 17C" in refs and "https://doi.org/10.3133/tm4B5" in refs
        # the gauge as the agency numbers it, its record embedded or uploaded (not "catalogue 06324500")
        assert re.search(r"\(USGS \d{8,15}, ", _section(md, "Methodology")), _section(md, "Methodology")[:300]
        # a historical period's row names its perception threshold (the one in force, not the default's zero)
        for row in re.findall(r"^\| \d{4}-\d{4} \| historical period[^|]*\| ([^|]+) \|", md, re.M):
            assert row.strip() != "none (every peak recorded)", row
        if skew.get("origin") == "published_study":  # the WY/MT study's skews; its record and methods when embedded
            assert "Regional skews of the USGS Wyoming-Montana peak-flow frequency study" in refs
            # what the skews follow: the generalized skew map of Bulletin 17B and the Montana methods report
            assert "Bulletin 17B of the Hydrology Subcommittee (Plate I" in refs
            assert "Sando, S.K., and McCarthy, P.M., 2018" in refs and "Report 2018-5046" in refs
            s2 = ws["run"]["results"]["s2"]["payload"]
            if s2["station"]["source"] != "upload" or (s2.get("peakfq") or {}).get("spec_from"):
                # its record, or its specification adopted for an upload without a .psf: the study and its methods
                assert "wymt_ffa_2022A of 21 streamgages" in refs and "Investigations Report 2025-5019" in refs
        if skew.get("skew") is not None:
            assert "weighted with the regional skew" in answer and skew["source"] in answer
            assert skew["citation"].split(",")[0] in refs  # the skew's report is in References
        else:
            assert "no published regional skew" in answer
    # no choice handed to the client
    recs = _section(md, "Recommendations").lower()
    assert not any(c in recs for c in _CHOICE), recs
    return dec


@pytest.mark.slow
@pytest.mark.parametrize("branch, text, site, intake, upload, us, b17c", [
    ("at_site", "Design flow for a road crossing, 100-year", FLAT_BROOK, None, None, True, False),
    ("bulletin17c", "Design flood for a bridge, 100-year", POWDER, None, None, True, True),
    ("bulletin17c", "100-year flood for a bridge", BIG_SANDY, None, None, True, True),
    ("bulletin17c_published", "Fifty-year flood on the Fox River at Berlin for a levee check", FOX_BERLIN,
     {"return_period": 50}, None, True, True),
    ("short_record", "25-year flood for a culvert from my fifteen years of gauge record", FLAT_BROOK,
     {"return_period": 25}, "short", True, False),
    ("regional", "Design flood for a bridge on an ungauged river of 4902.8 km2, 100-year", SCHUYLKILL, None, None,
     True, False),
    ("peak_trend", "Are floods getting larger on the Powder River?", POWDER, None, None, True, False),
    ("declined", "Design flood for a bridge, 100-year", ATLANTIC, None, None, False, False),
])
def test_the_reviewers_checklist(tmp_path, monkeypatch, branch, text, site, intake, upload, us, b17c):
    monkeypatch.setenv("AQUASCOPE_TODAY", TODAY)
    tables = _short_upload(tmp_path) if upload == "short" else None
    got = _run(text, site, tmp_path, tables=tables, intake=intake)
    plan = (got["ws"].get("study") or {}).get("plan") or {}
    if branch == "declined":
        assert not plan.get("branch") or (got["ws"].get("status") == "declined")
        assert "Not for design:" not in got["md"]
        return
    assert plan.get("branch") == branch
    _check(got, us=us, b17c=b17c, trend=branch.endswith("trend"))


@pytest.mark.slow
def test_embedded_record_and_upload_of_one_gauge_give_one_answer_and_one_skew_sentence(tmp_path, monkeypatch):
    """Powder River at Moorhead MT: the embedded 2022 record, and the study's WATSTORE cards with (and without) the
    study's .psf block uploaded at the same site."""
    from roles.specialists.flood_text import skew_clause

    monkeypatch.setenv("AQUASCOPE_TODAY", TODAY)
    text = "Design flood for a bridge, 100-year"
    embedded = _run(text, POWDER, tmp_path / "e")
    (tmp_path / "u").mkdir()
    (tmp_path / "n").mkdir()
    upload = _run(text, POWDER, tmp_path / "u", tables=_powder_files(tmp_path / "u", True))
    bare = _run(text, POWDER, tmp_path / "n", tables=_powder_files(tmp_path / "n", False))
    e, u, n = (g["ws"]["findings"]["decision"] for g in (embedded, upload, bare))
    pe, pu, pn = (g["ws"]["run"]["results"]["s2"]["payload"] for g in (embedded, upload, bare))
    assert pu["station"]["source"] != pe["station"]["source"]  # the upload really is the record read
    assert u["value"] == pytest.approx(e["value"], rel=1e-12) and u["band"]["lower"] == pytest.approx(e["band"]["lower"])
    assert skew_clause(pu) == skew_clause(pe)
    sentence = lambda a: re.search(r"Bulletin 17C: [^.]*\([^)]*\)[^.]*\.", a).group(0)  # noqa: E731
    assert sentence(u["answer"]) == sentence(e["answer"])
    # the whole answer and the grade: the same sentences, the catalogue's later years said for the upload too
    assert u["answer"] == e["answer"] and u["grade"] == e["grade"] == n["grade"]
    assert "while the catalogue lists this gauge's annual peak discharge up to" in u["answer"]
    # without the .psf, the gauge being one of the study's, the study's specification is adopted and said so: the
    # same thresholds, historical period and skew, so the same answer (without it: 40,473 against 39,875 ft3/s)
    assert pn["regional_skew_used"] == pe["regional_skew_used"]
    assert n["value"] == pytest.approx(e["value"], rel=1e-12) and n["band"]["upper"] == pytest.approx(e["band"]["upper"])
    assert sentence(n["answer"]) == sentence(e["answer"])
    assert ("No PeakFQ specification came with the peak file: the PeakFQ specification of the USGS Wyoming-Montana "
            "2022 flood-frequency study (wymt_ffa_2022A) for 06324500.00 is adopted") in n["answer"]
    assert "No PeakFQ specification came" not in e["answer"] + u["answer"]
    said = re.search(r" No PeakFQ specification came.*?historical period and options\)\.", n["answer"]).group(0)
    assert n["answer"].replace(said, "") == e["answer"]  # that sentence added, the rest the same
    for got in (embedded, upload, bare):
        _check(got, us=True, b17c=True)


@pytest.mark.slow
def test_big_sandy_upload_without_a_psf_gives_the_embedded_answer(tmp_path, monkeypatch):
    """Big Sandy's USGS peak file uploaded alone: the embedded record's perception thresholds (1890-1929 above
    18,000 ft3/s) are adopted and said, so the same 100-year flood (24,607 ft3/s; under PeakFQ's defaults, whose
    historical period starts at the first historical peak, 1897, it was 25,235 ft3/s) and the same sentence."""
    monkeypatch.setenv("AQUASCOPE_TODAY", TODAY)
    ref = Path(__file__).resolve().parents[1] / "reference" / "usgs_03606500_big_sandy_peaks_watstore.txt"
    text = "100-year flood for a bridge"
    embedded = _run(text, BIG_SANDY, tmp_path / "e")
    (tmp_path / "u").mkdir()
    upload = _run(text, BIG_SANDY, tmp_path / "u", tables={ref.name: ref})
    e, u = (g["ws"]["findings"]["decision"] for g in (embedded, upload))
    assert u["value"] == pytest.approx(e["value"], rel=1e-9) and u["band"]["upper"] == pytest.approx(e["band"]["upper"])
    sentence = lambda a: re.search(r"Bulletin 17C: [^.]*\([^)]*\)[^.]*\.", a).group(0)  # noqa: E731
    assert sentence(u["answer"]) == sentence(e["answer"])
    assert "the perception thresholds of the embedded record of this gauge are adopted" in u["answer"]
