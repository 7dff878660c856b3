"""verify.significant_figures / overprecise / round_prose: three significant figures in prose, with dates, years,
ids, coordinates, code and counts left as written."""

from aquascope_core.verify import overprecise, round_prose, sig_text, significant_figures


def test_significant_figures_as_written():
    assert [significant_figures(x) for x in ("22,927", "22,900", "0.0547", "3.30", "0.05475", "178.7", "100")] == \
        [5, 3, 3, 3, 4, 4, 1]
    assert [sig_text(x) for x in (22927.4, 0.05475, 178.7, -42.02, 3.3)] == ["22,900", "0.0548", "179", "-42.0", "3.30"]


def test_what_is_flagged_and_what_is_not():
    text = ("The flood is 22,927 ft3/s (1945-01-01 to 2024), from 29,345 daily values and 1,000 resamples at usgs "
            "01440000, latitude 41.1234; Sen's slope 0.05475 m3/s per year, 1946-2024, `s3.fits[12345]`.")
    assert [h["number"] for h in overprecise(text)] == ["22,927", "0.05475"]
    assert round_prose(text) == text.replace("22,927", "22,900").replace("0.05475", "0.0548")
    assert round_prose("80.34 years of record") == "80.3 years of record"


def test_scientific_notation_is_written_out():
    assert [h["number"] for h in overprecise("a flood of 2.293e+04 ft3/s")] == ["2.293e+04"]
    assert round_prose("largest 2.5e+04 in 1897; 100-year flood 2.293e+04 ft3/s") == \
        "largest 25,000 in 1897; 100-year flood 22,900 ft3/s"


def test_what_the_user_stated_is_kept_as_given():
    text = "At the site (11,745.6 km2) the mean flow is 223.41 m3/s."
    assert [h["number"] for h in overprecise(text, keep={11745.6})] == ["223.41"]
    assert round_prose(text, keep={11745.6}) == "At the site (11,745.6 km2) the mean flow is 223 m3/s."


def test_a_count_takes_its_noun_in_the_right_number():
    """Looked at: the water-quality report's '83 sampled values of 7 parameter(s) on 12 date(s)' and the site
    map's '23 station(s)'."""
    from aquascope_core.verify import plural_counts

    assert plural_counts("83 sampled values of 7 parameter(s) on 12 date(s)") == "83 sampled values of 7 parameters on 12 dates"
    assert plural_counts("1 date(s), 1,070 sample(s), 1 donor catchment(s)") == "1 date, 1,070 samples, 1 donor catchment"
    assert plural_counts("at 3, 6, 12 month(s) from 1957") == "at 3, 6, 12 months from 1957"
    assert plural_counts("required step(s) s2") == "required step(s) s2"  # no count: left as written
