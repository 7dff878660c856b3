"""Every recorded answer under fixtures/ has its source line in fixtures/README.md."""

from __future__ import annotations

from recorded_answers import FIXTURES


def test_every_fixture_is_named_in_the_readme_with_its_source():
    text = (FIXTURES / "README.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    files = sorted(p.name for p in FIXTURES.iterdir() if p.name != "README.md")
    unnamed = []
    for name in files:
        stem = name.rsplit(".", 1)[0]
        # a row names the file, or a numbered family of files ("..._page1.json` .. `_page5.json")
        family = stem.rstrip("0123456789")
        if not any(f"`{name}`" in r or (family != stem and f"`{family}" in r) for r in rows):
            unnamed.append(name)
    assert not unnamed, f"fixtures without a source line in README.md: {unnamed}"
    assert all(r.count("|") >= 5 for r in rows)  # file | service | where it came from | recorded
