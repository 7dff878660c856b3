"""The report's "Fitted parameters" table names each estimate as a hydrologist reads it, never by its key in the
result, and the workbook still splits it into one numeric column per parameter."""

from aquascope_core.deliverables.workbook import split_columns
from roles.specialists.flood_risk import parameter_text


def test_gev_maximum_likelihood_in_coles_letters_its_shape_once():
    text = parameter_text({"mu": 54.3, "sigma": 20.1, "xi_coles": -0.05, "k": 0.05})
    assert text == "location μ 54.3, scale σ 20.1, shape ξ -0.05"


def test_l_moment_gev_in_hoskings_letters_its_shape_once():
    text = parameter_text({"xi": 50.0, "alpha": 20.0, "k": 0.1, "xi_coles": -0.1})
    assert text == "location ξ 50, scale α 20, shape k 0.1"


def test_log_pearson_moments_in_words_without_the_log_base_setting():
    text = parameter_text({"mean_log": 3.72, "sd_log": 0.291, "skew_log": -0.156, "log_base": 10.0})
    assert text == "mean of logs 3.72, standard deviation of logs 0.291, skew of logs -0.156"
    assert "_" not in text


def test_the_workbook_splits_the_named_parameters_into_columns():
    cells = [parameter_text({"mu": 54.3, "sigma": 20.1, "xi_coles": -0.05, "k": 0.05}),
             parameter_text({"mu": 60.0, "sigma": 21.0, "xi_coles": 0.02, "k": -0.02})]
    cols, rows = split_columns(["Fit", "Parameters"], [["GEV", cells[0]], ["GEV", cells[1]]])
    assert cols == ["Fit", "location μ", "scale σ", "shape ξ"]
    assert rows[1] == ["GEV", "60", "21", "0.02"]


def test_each_estimate_carries_its_unit():
    """Location and scale in the flow's unit, the log-space moments in log units of it, a shape or skew
    dimensionless (the table named the parameters but stated no unit)."""
    gev = parameter_text({"mu": 5432.1, "sigma": 2010.0, "xi_coles": -0.05, "k": 0.05}, "ft3/s")
    assert gev == "location μ 5,430 ft3/s, scale σ 2,010 ft3/s, shape ξ -0.05"
    lp3 = parameter_text({"mean_log": 3.72, "sd_log": 0.291, "skew_log": -0.156, "log_base": 10.0}, "ft3/s")
    assert lp3 == "mean of logs 3.72 log10 ft3/s, standard deviation of logs 0.291 log10 ft3/s, skew of logs -0.156"
    ln = parameter_text({"mean_log": 3.72, "sd_log": 0.291, "skew_log": -0.156, "log_base": 2.718281828459045}, "m3/s")
    assert "mean of logs 3.72 ln m3/s" in ln


def test_the_workbook_puts_each_unit_in_its_column_header():
    cells = [parameter_text({"mu": 5432.1, "sigma": 2010.0, "xi_coles": -0.05, "k": 0.05}, "ft3/s"),
             parameter_text({"mu": 6000.0, "sigma": 2100.0, "xi_coles": 0.02, "k": -0.02}, "ft3/s")]
    cols, rows = split_columns(["Fit", "Parameters"], [["GEV", cells[0]], ["GEV", cells[1]]])
    assert cols == ["Fit", "location μ (ft3/s)", "scale σ (ft3/s)", "shape ξ"]
    assert rows[0] == ["GEV", "5430", "2010", "-0.05"] and rows[1] == ["GEV", "6000", "2100", "0.02"]
    cols, rows = split_columns(["Fit", "Parameters"], [["LP3", parameter_text(
        {"mean_log": 3.72, "sd_log": 0.291, "skew_log": -0.156, "log_base": 10.0}, "ft3/s")]])
    assert cols == ["Fit", "mean of logs (log10 ft3/s)", "standard deviation of logs (log10 ft3/s)", "skew of logs"]
