"""The sensitivity table's change column compares like with like (graphs.sensitivity)."""

from graphs.sensitivity import sensitivity_table

BASE = {"value": 7590.0, "unit": "ft3/s", "quantity": "peak flow", "return_period": 100, "band": {}}


def _change(row):
    table = sensitivity_table([{"choice": "as approved", "variant": "as planned", **BASE},
                               {"choice": "distribution", "variant": "one alone", "return_period": 100, **row}], BASE)
    return table["rows"][1][table["columns"].index("Change")]


def test_a_fork_in_another_unit_is_converted_before_the_change():
    # 200 m3/s = 7,062.9 ft3/s (1 ft3/s = 0.028316846592 m3/s); against 7,590: -6.9 %
    assert _change({"value": 200.0, "unit": "m3/s", "quantity": "peak flow"}) == "-6.9 %"


def test_a_fork_whose_headline_is_another_quantity_gets_words_not_a_percentage():
    change = _change({"value": 138.0, "unit": "m3/s", "quantity": "maximum daily mean flow"})
    assert change.startswith("not comparable") and "maximum daily mean flow" in change and "%" not in change


def test_same_unit_and_quantity_is_a_plain_percentage():
    assert _change({"value": 8349.0, "unit": "ft3/s", "quantity": "peak flow"}) == "+10.0 %"


def test_a_unit_of_another_dimension_is_not_compared():
    assert _change({"value": 5.0, "unit": "mm/day", "quantity": "peak flow"}).startswith("not comparable")
