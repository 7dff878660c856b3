"""Bulletin 17C against PeakFQ 8.1.0's own Fortran, record by record (differential tests).

The oracle is the USGS EMA Fortran of peakfqr 8.1.0 (CC0), built from ``../shared/reference/peakfq-8.1.0``
(conftest.py) and driven through the data handling PeakFQ 8.1.0 runs before it (the folder's
``peakfq_oracle.py``). Our side reads the same record as a user's files go in: the station's peaks with their
qualification codes and the specification, through ``aquascope_core.data.peakfq_files.ema_inputs``, then
``fit_lp3_ema``, its multiple Grubbs-Beck test and ``ema_confidence_band`` at PeakFQ's 25 AEPs.

Judged (scripts/peakfq810/compare.py): the low-outlier count and threshold exactly; the mean, standard deviation,
quantiles and limits within 2e-4 relative, the final and at-site skews within 1e-4 absolute. PeakFQ's answer moves
with the order of the rows it is given on ill-conditioned records; it is run in its own (chronological) order and,
where ours does not agree within the tolerance, in five more (systematic peaks first, reversed, three seeded
permutations: ``oracle.ROW_ORDERS``); where those differ from its chronological answer by more than the tolerance
the comparison allows the largest difference; the records where it does are listed in ``ORACLE_SPREAD``. Records
still apart are run under last-bit changes of PeakFQ's inputs (``oracle.ULP_DRAWS``: each measured log peak moved
by at most one ulp, the bits its log10 routine decides); the records whose agreement needs that spread are listed in
``ORACLE_ULP_SPREAD``. It is an honest measure of PeakFQ's own conditioning there, checked against its Fortran: its
EMA variance at quadrature nodes with |G| below 0.0632 is taken at |G| held at 0.06324555, where the Pearson III
moments and their derivatives in the skew are expanded about the gamma's origin 31.6 standard deviations away; a
1e-13 change of its moments moves its own var_mom by ~3e-3 and its lower limit by ~1e-3 (seed79, seed142), and its
Newton iteration (mn2mvarb) passes that on unchanged. Only a bit-for-bit port, fed bit-for-bit equal moments, would
follow it.

Records: the ten shared cases, the 24 analyses of the USGS Wyoming-Montana 2022 study with the study's PSF options,
and 300 generated records (scripts/peakfq810/records.py). One record in one line:
``PYTHONPATH=. python -m scripts.peakfq810.compare --seed 17`` (or ``--case ID``, ``--wymt ID``).
"""

from __future__ import annotations

import json

import pytest

from scripts.peakfq810 import compare as C
from scripts.peakfq810 import oracle as O
from scripts.peakfq810 import records as R

N_GENERATED = 300

try:
    CASE_IDS = O.case_ids(O.source_dir())
except O.OracleUnavailable:
    CASE_IDS = []
try:
    WYMT_IDS = [r["id"] for r in R.wymt_records()]
except FileNotFoundError:
    WYMT_IDS = []

#: Records on which PeakFQ's own answer moves between row orders by more than the tolerance, and the quantities
#: for which the comparison allows that spread (measured; a record that needs the spread and is not named here fails).
#: Measured on two machines (the earlier development machine and an AMD EPYC, with the same code and packages): where
#: a limit lies close to the tolerance the machine puts ours either side of it (not the numpy, scipy or numba
#: release: numpy 2.4.5, scipy 1.17.0 and numba 0.68.0 give the same as the latest; presumably the CPU-dispatched
#: kernels), so a record may need the spread on one machine and not on the other; the sets are the union of both.
ORACLE_SPREAD: dict[str, set[str]] = {
    "seed2": {'lower'},
    "seed5": {'lower'},
    "seed6": {'lower', 'upper'},
    "seed29": {'lower', 'upper'},
    "seed42": {'lower', 'upper'},
    "seed61": {'lower', 'upper'},
    "seed82": {'lower'},
    "seed95": {'lower'},
    "seed106": {'lower'},
    "seed127": {'lower'},
    "seed147": {'lower'},
    "seed155": {'lower', 'upper'},
    "seed182": {'lower'},
    "seed201": {'lower', 'upper'},
    "seed238": {'lower', 'upper'},
    "seed240": {'lower', 'upper'},
    "seed252": {'lower', 'upper'},
    "seed258": {'lower'},
    "seed289": {'upper'},
    "06185200.00": {'lower', 'upper'},
    "06324500.00": {'lower'},
    "06324500_powder_moorhead": {'lower'},
    "06328800.00": {'lower'},
    "06328900.00": {'lower', 'upper'},
    "06329350.00": {'lower', 'upper'},
    "03606500_big_sandy": {'at_site_skew'},
}

#: Records that agree only within PeakFQ's spread under last-bit changes of its inputs (``oracle.ULP_DRAWS``), and
#: the quantities for which it is needed (measured on the same two machines; a record that needs it and is not named
#: here fails). All are limits at records whose EMA variance meets |G| < 0.0632 at its quadrature nodes (see the
#: module's docstring).
ORACLE_ULP_SPREAD: dict[str, set[str]] = {
    "seed2": {'lower'},
    "seed29": {'lower', 'upper'},
    "seed82": {'lower', 'upper'},
    "seed147": {'lower'},
    "seed155": {'lower', 'upper'},
    "seed213": {'lower'},
    "seed227": {'lower'},
    "seed238": {'lower', 'upper'},
    "seed240": {'lower'},
    "seed241": {'lower'},
    "seed258": {'upper'},
}

_NOISE = (
    "limits only (moments and quantiles agree): beyond PeakFQ's own spread over its six row orders and twelve "
    "last-bit changes of its inputs, but of that size: its EMA variance at the quadrature nodes with |G| below 0.0632 "
    "is taken at |G| held at 0.06324555, where its var_mom moves by ~3e-3 under 1e-13 changes of its moments (the "
    "moments and their derivatives in the skew expanded about the gamma's origin 31.6 standard deviations away), so "
    "its limits there are noise of ~1e-3 (its lower limit moves by 1e-3 under 1e-13 changes of its moments: seed79, "
    "seed142); ours carry the same noise, differently drawn; only a bit-for-bit port fed bit-for-bit equal moments "
    "would follow it. Two more of its moves there were followed in our variance and measured over the whole file: its "
    "incomplete gamma for the tail probabilities (var_mom's pP3) and the tails' derivatives taken at its quantile of "
    "those probabilities (d_est's qP3(pP3(t)), whose inversion holds the probability to 1e-9 of itself): seed120, "
    "seed182 and seed285 came within its spread (seed142 and seed249 too when run alone, not in the batch of 300) and "
    "seed79 to 1.6e-3, but seed298 went outside it (lower 2.6e-4 > 2e-4); the d_est point alone brought seed120, "
    "seed142 and seed285 within it and put seed182 outside (lower 7.9e-4 > 6.8e-4). Not adopted: either way the limits "
    "there follow that noise record by record, not PeakFQ"
)

#: Records that still disagree (on one machine or both), with the measured gap and what is known of its cause. The
#: tolerances are not loosened for them: they are reported as disagreeing (issue 22 stays open on them), and the test
#: holds each within GAP_BOUNDS, so one that drifts further apart fails. They were strict expected failures; on the
#: second machine seed142, seed181 (once), seed249 and seed285 agreed while seed109, seed111, seed250 and seed259
#: came apart (their limits are the same noise, drawn on another CPU), so a strict mark failed on one machine
#: or the other.
KNOWN_GAPS: dict[str, str] = {
    "06328100.00": "measured: at_site_skew: 0.00021 > 0.000169 (PeakFQ's row-order spread 0.000169); ours -0.026122, PeakFQ -0.026333. Traced: heavily censored (21 of 49 years) with |G| = 0.026 (shape 5900, the gamma's origin 77 standard deviations away). PeakFQ's own answers over its six row orders and twelve last-bit draws span -0.02633 to -0.02616, all 0.3e-4 to 2.1e-4 below the exact moments' fixed point (-0.026126 from its start and stopping rule, which alone move ours by 3e-6): the offset is made by its rounding of the normalisation (Lanczos' log Gamma near 4.5e4, whose last bit is 7e-12, enters each shape's incomplete gamma apart), not by the approximation itself (the exact ratios times its Lanczos error, computed without that rounding, give -0.026126). Its incomplete gamma in our EMA (one shape at a time, compiled: 31.5 against 27 ms a fit) with its start and stopping rule gives -0.026268 (6.4e-5 from PeakFQ), and 8 last-bit draws of it span -0.02631 to -0.02618, PeakFQ's spread; not adopted, because the same arithmetic draws PeakFQ's noise on every small-|G| censored fit: 06329350.00's final skew (|G| = 0.0115, 3 low outliers; PeakFQ's answers span -0.01167 to -0.01142) moves from -0.011546 to -0.011411 (-0.011488 with the exact moments kept where |G| >= 0.05), outside its row-order spread of 1.09e-4 about -0.011616",
    "seed79": "measured: lower: 0.00209 > 0.000661 (PeakFQ's row-order spread 0.000571; its last-bit spread 0.000661). " + _NOISE,
    "seed120": "measured: lower: 0.000333 > 0.000319 (PeakFQ's row-order spread 0.000303; its last-bit spread 0.000319). " + _NOISE,
    "seed142": "measured: lower: 0.00352 > 0.00336 (PeakFQ's row-order spread 0.00239; its last-bit spread 0.00336). " + _NOISE,
    "seed181": "measured: skew and at_site_skew 0.00167 > 0.0001 (ours -0.002122, PeakFQ about -0.00045), estimate 0.00175, lower 0.0031, upper 0.00438. PeakFQ's EMA iteration has no fixed point here under its own arithmetic: its gamma form of the censored moments at 0.001 < |G| < ~0.005 (shape 1.6e5 to 4e6, the origin 400 to 2000 standard deviations away, and above shape 1e6 its incomplete gamma is a normal cdf good to 1e-7) loses them (one step from G = -0.0021 gives G = 0.27; the same with its mP3 called directly), so it runs into its 10000-step cycle averaging (minutes). Its Wilson-Hilferty form below |G| = 0.001 (ported, measured, backed out: it redrew the limits' noise elsewhere) leaves ours at the exact moments' fixed point -0.00212; PeakFQ's start, stopping rule, cycle averaging and incomplete gamma in our EMA give -0.00033 after 20000 steps (72 s of CPU), not its answer: an artefact of its iteration, not followed",
    "seed249": "measured: lower: 0.00102 > 0.000681 (PeakFQ's row-order spread 0.000489; its last-bit spread 0.000681). " + _NOISE,
    "seed285": "measured: lower: 0.000367 > 0.000352 (PeakFQ's row-order spread 0.000284; its last-bit spread 0.000352). " + _NOISE,
    "seed109": "measured on the AMD machine: lower: 0.000613 > 0.000526 (PeakFQ's row-order spread 0.000522; its last-bit spread 0.000526); agrees on the earlier one. " + _NOISE,
    "seed111": "measured on the AMD machine: lower: 0.00345 > 0.00286, upper: 0.00107 > 0.000899 (PeakFQ's row-order spread 0.00146 and 0.0004; its last-bit spread 0.00286 and 0.000899); agrees on the earlier one. " + _NOISE,
    "seed250": "measured on the AMD machine: lower: 0.00195 > 0.00118, upper: 0.000672 > 0.000527 (PeakFQ's row-order spread 0.00112; its last-bit spread 0.00118 and 0.000527); agrees on the earlier one. " + _NOISE,
    "seed259": "measured on the AMD machine: lower: 0.000612 > 0.000611 (PeakFQ's row-order spread 0.000516; its last-bit spread 0.000611); agrees on the earlier one. " + _NOISE,
}

#: The largest difference each known gap may reach, per quantity: 1.5 times the largest measured on either machine
#: (relative; skews absolute). Any other quantity of those records is judged as every record's is.
GAP_BOUNDS: dict[str, dict[str, float]] = {
    "06328100.00": {"at_site_skew": 3.2e-4},
    "seed79": {"lower": 3.1e-3},
    "seed120": {"lower": 5.0e-4},
    "seed142": {"lower": 5.3e-3},
    "seed181": {"skew": 2.5e-3, "at_site_skew": 2.5e-3, "estimate": 2.6e-3, "lower": 5.0e-3, "upper": 6.6e-3},
    "seed249": {"lower": 1.5e-3},
    "seed285": {"lower": 5.5e-4},
    "seed109": {"lower": 9.2e-4},
    "seed111": {"lower": 5.2e-3, "upper": 1.6e-3},
    "seed250": {"lower": 2.9e-3, "upper": 1.0e-3},
    "seed259": {"lower": 9.2e-4},
}


def _param(rid: str):
    return pytest.param(rid, id=rid)


def test_every_known_gap_has_its_bound_and_its_reason():
    assert set(GAP_BOUNDS) == set(KNOWN_GAPS)
    assert not set(KNOWN_GAPS) & (set(ORACLE_SPREAD) | set(ORACLE_ULP_SPREAD))


def _judge_known_gap(v, rid: str, how: str) -> None:
    """A known gap stays within its bound; its low outliers and every other quantity as for any record."""
    bounds = GAP_BOUNDS[rid]
    apart = {k: d for k, d in v["diff"].items() if k in v["allowed"] and not d <= v["allowed"][k]}
    assert not [f for f in v["failures"] if f.split(":")[0] not in v["allowed"]], (rid, v["failures"])
    worse = {k: d for k, d in apart.items() if not d <= bounds.get(k, v["allowed"][k])}
    assert not worse, (f"{rid} (a known gap: {KNOWN_GAPS[rid][:120]}...) is further apart than its bound: "
                       + "; ".join(f"{k} {d:.3g} > {bounds.get(k, v['allowed'][k]):.3g}" for k, d in worse.items())
                       + f"  [reproduce: PYTHONPATH=. python -m scripts.peakfq810.compare {how}]")


def _judge(result) -> None:
    v = result["verdict"]
    rid = result["id"]
    how = (f"--seed {rid[4:]}" if rid.startswith("seed") else
           f"--case {rid}" if rid in CASE_IDS else f"--wymt {rid}")
    assert not v.get("both_refuse"), f"{rid}: both refuse the record (the generator must not make it)"
    if rid in KNOWN_GAPS:
        _judge_known_gap(v, rid, how)
        return
    assert not v["failures"], (f"{rid} disagrees with PeakFQ 8.1.0: " + "; ".join(v["failures"]) +
                               f"  [reproduce: PYTHONPATH=. python -m scripts.peakfq810.compare {how}]")
    assert set(v["uses_ulp_spread"]) <= ORACLE_ULP_SPREAD.get(rid, set()), (
        f"{rid}: PeakFQ's last-bit spread is needed for {sorted(v['uses_ulp_spread'])}, "
        f"declared {sorted(ORACLE_ULP_SPREAD.get(rid, set()))}")
    assert set(v["uses_spread"]) <= ORACLE_SPREAD.get(rid, set()), (
        f"{rid}: PeakFQ's row-order spread exceeds the tolerance for {sorted(v['uses_spread'])}, "
        f"declared {sorted(ORACLE_SPREAD.get(rid, set()))}")


@pytest.fixture(scope="module")
def shared_results(peakfq_oracle):
    recs = [O.read_case(peakfq_oracle.folder, i) for i in CASE_IDS]
    return {c["id"]: c for c in C.compare(recs, peakfq_oracle)}


@pytest.fixture(scope="module")
def wymt_results(peakfq_oracle):
    return {c["id"]: c for c in C.compare(R.wymt_records(), peakfq_oracle)}


@pytest.fixture(scope="module")
def generated_results(peakfq_oracle):
    return {c["id"]: c for c in C.compare([R.generate(s) for s in range(N_GENERATED)], peakfq_oracle)}


@pytest.mark.slow
def test_the_built_oracle_reproduces_the_shared_outputs(peakfq_oracle):
    """The local build gives the stored PeakFQ 8.1.0 outputs of the shared cases bit for bit (a bad build fails)."""
    assert len(CASE_IDS) == 10
    recs = [O.read_case(peakfq_oracle.folder, i) for i in CASE_IDS]
    for rid, got in zip(CASE_IDS, peakfq_oracle.run_many(recs)):
        ref = json.loads((peakfq_oracle.folder / "cases" / f"{rid}_oracle.json").read_text())
        got = got["chronological"]
        assert got["lp3"] == ref["lp3"] and got["at_site"] == ref["at_site"], rid
        assert [q["log10_ci_low"] for q in got["quantiles"]] == [q["log10_ci_low"] for q in ref["quantiles"]], rid


@pytest.mark.slow
def test_a_record_the_fortran_stops_on_is_reported_and_the_batch_goes_on(peakfq_oracle):
    """ERROR STOP inside the Fortran (here: no systematic peak left for the MGBT) ends its child process only."""
    good = O.read_case(peakfq_oracle.folder, CASE_IDS[0])
    rows, a, _ = peakfq_oracle.prepare(good)
    bad = dict(a, tl=[x + 30.0 for x in a["tl"]], tu=[x + 30.0 for x in a["tu"]])  # every threshold above the floods
    out = peakfq_oracle.call_many([a, bad, a], workers=1)
    assert "error" not in out[0] and "error" not in out[2] and out[0] == out[2]
    assert "error" in out[1]


@pytest.mark.slow
@pytest.mark.parametrize("rid", [_param(i) for i in CASE_IDS])
def test_shared_case_agrees_with_peakfq_810(shared_results, rid):
    _judge(shared_results[rid])


@pytest.mark.slow
@pytest.mark.parametrize("rid", [_param(i) for i in WYMT_IDS])
def test_wymt_2022_analysis_agrees_with_peakfq_810(wymt_results, rid):
    """USGS Wyoming-Montana 2022 (peakfqr 8.1.0's test set): the study's PSF options, HWN weighting (8.1.0's default)."""
    _judge(wymt_results[rid])


@pytest.mark.slow
@pytest.mark.parametrize("rid", [_param(f"seed{s}") for s in range(N_GENERATED)])
def test_generated_record_agrees_with_peakfq_810(generated_results, rid):
    _judge(generated_results[rid])


@pytest.mark.slow
def test_the_generator_is_reproducible_and_spans_what_users_bring():
    """The same seed gives the same record; the 300 records cover every feature the comparison must exercise."""
    assert R.generate(7) == R.generate(7) and R.generate(7) != R.generate(8)
    recs = [R.generate(s) for s in range(N_GENERATED)]
    feats = [set(f.rstrip("0123456789") for f in r["features"]) for r in recs]
    every = set().union(*feats)
    for need in ("zeros", "low", "hist", "lt_gt", "interval", "finite_upper", "missing", "station", "weighted",
                 "regional", "HWN", "INV", "ERL", "mgbt", "fixed", "none", "ci"):
        assert need in every, need
    assert {90, 95} == {int(r["options"]["conf_interval"] * 100) for r in recs}
    n = [int(next(f for f in r["features"] if f.startswith("n") and f[1:].isdigit())[1:]) for r in recs]
    assert min(n) <= 15 and max(n) >= 140
    zero_share = [sum(1 for p in r["peaks"] if p["peak"] == 0) / k for r, k in zip(recs, n)]
    assert 0.25 < max(zero_share) <= 1 / 3 + 1e-9 and sum(z > 0 for z in zero_share) >= 50
