"""The registry, the tool catalogue and the playbooks agree with each other."""

from __future__ import annotations

import importlib

import pytest

from aquascope_core import playbooks
from aquascope_core.catalogue import TOOLS, schema
from aquascope_core.registry import METHODS, SiteContext, assess_method, sufficiency_table


def test_every_registry_method_is_applied_by_the_tool_it_names_and_its_function_exists():
    for m in METHODS.values():
        mod, _, fn = m.function.rpartition(".")
        assert callable(getattr(importlib.import_module(mod), fn)), m.id
        assert m.tool in TOOLS, f"{m.id}: tool {m.tool!r} is not in the catalogue"
        assert m.id in TOOLS[m.tool].methods, f"{m.id}: {m.tool} does not list it among the methods it applies"
        assert m.citation and m.label


def test_every_tool_is_described_and_its_methods_are_registered():
    for t in TOOLS.values():
        assert t.purpose and t.kind and t.citation, t.id
        assert t.load().__name__ == t.id  # the registry id equals the function name it stands for
        assert all(m in METHODS for m in t.methods), t.id
        sch = schema(t.id)
        assert "data" not in sch and all("required" in v for v in sch.values())


def test_the_seven_playbooks_load_and_validate():
    ids = [p["id"] for p in playbooks.list_playbooks()]
    assert ids == sorted(["flood_risk", "ungauged_flow", "groundwater_decline", "drought_status",
                          "supply_reliability", "irrigation_feasibility", "water_quality"])
    for pid in ids:
        pb = playbooks.load(pid)
        assert playbooks.validate(pb) == []
        assert pb["declines"] and pb["caveats"] and pb["citations"] and pb["branches"], pid
        assert any(isinstance(c, dict) for c in pb["caveats"]), f"{pid} has no conditional caveat"
        for b in pb["branches"]:
            for st in b["steps"]:
                assert st["tool"] in TOOLS, (pid, b["id"], st["id"], st["tool"])
                if st.get("method"):
                    assert st["method"] in TOOLS[st["tool"]].methods, (pid, st["id"])
        described = playbooks.describe_playbook(pid)
        assert [b["id"] for b in described["branches"]] == [b["id"] for b in pb["branches"]]


def test_every_playbook_has_a_specialist():
    from roles.specialists import KINDS, module_for

    for kind in KINDS:
        mod = module_for(kind)
        assert mod is not None and callable(getattr(mod, "decide", None)), kind
        assert getattr(mod, "HARVESTERS", None), kind


@pytest.mark.parametrize("years,status", [(None, "not_defensible"), (5, "not_defensible"), (15, "marginal"),
                                          (40, "defensible")])
def test_assess_method_by_record_length(years, status):
    ctx = SiteContext(years_by_variable={"discharge": years} if years else {},
                      resolution_by_variable={"discharge": "daily"})
    assert assess_method("gev_lmoments", ctx, variable="discharge")["status"] == status


def test_assess_method_resolution_area_needs_and_donors():
    monthly = SiteContext(years_by_variable={"discharge": 40}, resolution_by_variable={"discharge": "monthly"})
    assert "needs daily discharge" in assess_method("gr4j_calibration", monthly)["reason"]
    no_pet = SiteContext(years_by_variable={"discharge": 40, "precipitation": 40},
                         resolution_by_variable={"discharge": "daily", "precipitation": "daily"},
                         available={"discharge", "precipitation"})
    verdict = assess_method("gr4j_calibration", no_pet)
    assert verdict["status"] == "not_defensible" and "potential_evapotranspiration" in verdict["reason"]
    assert assess_method("regional_index_flood", {"donors": 2})["status"] == "not_defensible"
    assert assess_method("regional_index_flood", {"donors": None})["status"] == "defensible"  # left to the gate
    table = sufficiency_table({"years_by_variable": {"discharge": 40}, "resolution_by_variable": {"discharge": "daily"}},
                              problem="flood_risk")
    order = [r["status"] for r in table]
    assert order == sorted(order, key=["defensible", "marginal", "not_defensible"].index)
