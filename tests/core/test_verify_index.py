"""verify.PoolIndex: a report's numbers looked up in a sorted pool give the answers the scan of every pool value gives
(the rule of verify.matches: the written precision, a percentage as a fraction, a whole number's trailing zeros), and
a number planted in a report that no gated result holds is still refused."""

import random

from aquascope_core.verify import PoolIndex, _held_linear, matches, number_pool, numbers_in, verify


def _numbers(rng: random.Random) -> list[dict]:
    out = []
    for _ in range(400):
        v = rng.choice([rng.uniform(-5, 5), rng.uniform(0, 3000), rng.uniform(0, 2e6), float(rng.randrange(0, 5000)),
                        float(rng.randrange(1, 90) * 10 ** rng.randrange(1, 6))])
        d = rng.choice([0, 0, 1, 2, 3])
        out.append({"value": round(v, d), "decimals": d, "percent": rng.random() < 0.2})
    return out


def test_the_index_answers_as_the_scan_does():
    rng = random.Random(27)
    for trial in range(30):
        pool = {rng.choice([rng.uniform(-5, 5), rng.uniform(0, 3000), rng.uniform(0, 2e6), float(rng.randrange(5000)),
                            rng.uniform(0, 1)]) for _ in range(rng.choice([0, 1, 5, 200, 2000]))}
        pool |= {0.0, float("inf"), float("nan")} if trial % 3 == 0 else set()
        nums = _numbers(rng)
        # values at the edges of each number's tolerance, and near the rounding of trailing zeros
        for n in nums[:60]:
            tol = 0.5 * 10 ** -n["decimals"]
            pool |= {n["value"] + tol, n["value"] - tol, n["value"] + tol * (1 + 1e-12), n["value"] - 0.5e-9}
        for n in nums[60:90]:
            pool.add(n["value"] + 500.0)
            pool.add(n["value"] - 50.0)
        index = PoolIndex(pool)
        got = [matches(n, index) for n in nums]
        want = [_held_linear(n["value"], n["decimals"], n["percent"], pool) for n in nums]
        assert got == want, trial
        assert any(want) and not all(want)


def test_the_known_rules_hold_through_the_index():
    index = PoolIndex({35.24, 1249.6, 0.25, 1234.0})
    held = [matches(n, index) for n in numbers_in("35.2, 1,250, 25 %, 1,200, 1,000, 35.3, 1,251 and 26 %")]
    assert held == [True, True, True, True, True, False, False, False]


def test_a_planted_number_is_refused():
    payload = {"q100": 22927.4, "band": [18000.0, 29000.0], "years": 79, "meta": {"seconds": 0.512}}
    pool = number_pool([payload])
    ok = verify("The design flood is 22,900 ft3/s (from 18,000 to 29,000 ft3/s), from 79 years.", pool)
    assert ok["ok"] and ok["checked"] == 4
    bad = verify("The design flood is 22,900 ft3/s; the largest flood is 31,417 ft3/s.", pool)
    assert not bad["ok"] and [u["number"] for u in bad["unmatched"]] == ["31,417"]
    # a number only the provenance block holds is not evidence
    assert not verify("It took 0.512 s.", pool)["ok"]


def test_the_pool_reads_strings_and_leaves_as_before():
    import types

    import numpy as np

    payload = {"dates": ["2024-09-30", "1945-01"], "note": "from 1903-10-01 to 2024, 79 peaks of 1,250.5 ft3/s",
               "unit": "ft3/s", "source": "usgs", "flags": [True, False, None], "q": np.float64(12.5),
               "view": types.MappingProxyType({"k": (3, 4.5)}), "plot": {"y": [999.0]}, "meta": {"n": 8888}}
    assert number_pool(payload) == {2024.0, 1945.0, 1903.0, 79.0, 1250.5, 12.5, 3.0, 4.5}
    # a date with its time is not a whole date: read as the scan reads it (the year, and ":00")
    assert number_pool("the station 01440000, `s3` and 2024-09-30T00:00") == {2024.0, 0.0}
