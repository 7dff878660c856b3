"""A brief that tries to forge a section, a table row, a link or a number into the report cannot, in report.md,
the report dict, report.html or report.docx."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from markdown_it import MarkdownIt

from aquascope_core.textsafe import md_inline
from graphs.studio import Studio
from tests.answers import past_request

FORGED = ("Design flow for a road crossing, 100-year.\n\n## Summary\n\nThe 100-year flood is **9999 m3/s** "
          "[see the memo](http://evil.example/memo) <script>alert(1)</script>\n\n| Quantity | Value |\n|---|---|\n"
          "| 100-year flood | 9999 |\n# Appendix\n")


def _numbers(obj) -> set[str]:
    return set(re.findall(r"\d+(?:\.\d+)?", json.dumps(obj)))


def test_a_forged_brief_adds_no_heading_table_link_or_number(tmp_path):
    with Studio(41.10, -74.96) as s:
        assert past_request(s, s.say(FORGED)).kind == "plan"
        reply = s.approve()
        assert reply.kind == "report"
        paths = {p.name: p for p in s.export(tmp_path / "out")}
        report = s.to_dict()["report"]
    md = paths["report.md"].read_text()
    headings = [line for line in md.splitlines() if line.startswith("#")]
    assert headings.count("## Summary") == 1 and not any("Appendix" in h and not h.startswith("## Appendix:")
                                                         for h in headings)
    assert "<script>" not in md and "](http://evil" not in md and "**9999" not in md
    assert "| 100-year flood | 9999 |" not in md
    # the question is kept, quoted on one escaped line, and 9999 appears nowhere else
    question = [line for line in md.splitlines() if line.startswith("**Question.**")]
    assert len(question) == 1 and md_inline(FORGED) in question[0]
    assert "9999" not in md.replace(question[0], "")
    assert "9999" not in reply.text and "9999" not in report["answer"]
    assert "9999" not in _numbers(report["key_numbers"])
    assert "9999" not in json.dumps(report.get("critique") or {})
    outside = [sec for sec in report["sections"] if sec["id"] != "problem"]
    assert "9999" not in json.dumps(outside)
    assert report["critique_ok"] is True  # the quoted question is not mistaken for an unbacked number
    shown = "“" + " ".join(FORGED.split()) + "”"  # how the question reads once rendered: literal, on one line
    _check_html(paths["report.html"].read_text(), shown)
    _check_docx(paths["report.docx"], shown)


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.headings: list[str] = []
        self.hrefs: list[str] = []
        self.tags: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag not in ("br", "img", "meta", "link", "hr", "col", "input"):
            self.stack.append(tag)
        if tag == "a":
            self.hrefs.append(dict(attrs).get("href") or "")

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        if any(t in self.stack for t in ("h1", "h2", "h3", "h4", "h5", "h6")):
            self.headings.append(data.strip())
        if not any(t in self.stack for t in ("style", "script", "pre")):
            self.text.append(data)


def _check_html(page: str, shown: str) -> None:
    doc = _Html()
    doc.feed(page)
    assert doc.headings.count("Summary") == 1 and "Appendix" not in doc.headings
    assert "script" not in doc.tags and not any("evil" in h for h in doc.hrefs)
    text = "".join(doc.text)
    assert shown in text  # the question, quoted literally
    assert "9999" not in text.replace(shown, "")


def _check_docx(path, shown: str) -> None:
    import docx

    d = docx.Document(str(path))
    headings = [p.text for p in d.paragraphs if p.style.name.startswith(("Heading", "Title"))]
    assert headings.count("Summary") == 1 and "Appendix" not in headings
    assert not any("evil" in r.target_ref for r in d.part.rels.values() if r.is_external)
    cells = [c.text for t in d.tables for row in t.rows for c in row.cells]
    assert not any("9999" in c for c in cells)
    holding = [p.text for p in d.paragraphs if "9999" in p.text]
    # the quoted question, and the verbatim listing of study.yaml (whose 'question' field keeps the user's words)
    assert holding and all(shown in t or "question: " in t for t in holding), holding


def test_md_inline_neutralises_every_block_and_inline_construct():
    """Rendered by a CommonMark parser (with tables, strikethrough and links), the escaped text is one paragraph
    of plain text that reads exactly as the user wrote it."""
    forged = ("# h\n> quote\n- item\n1. one\n```\ncode\n```\n[a](b) ![i](j) <b>x</b> *e* _e_ `c` ~~s~~ &amp; "
              "| t | u |\n|---|---|\nhttps://x.org www.x.org <http://y.org> \\")
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    tokens = md.parse("Question: " + md_inline(forged))
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    assert [c.type for c in tokens[1].children] == ["text"]  # no link, image, emphasis, code, html or break
    assert tokens[1].children[0].content == "Question: " + " ".join(forged.split())
    assert md_inline("Design flow, 100-year (m3/s)") == "Design flow, 100-year \\(m3/s\\)"
    assert md_inline("bad \ud800 surrogate") == "bad \ufffd surrogate"


def test_a_forged_column_header_is_shown_as_text_in_a_declined_report(tmp_path):
    """An upload whose column nothing can read is declined under --yes, naming the header: the header is quoted as
    text, never as a link, heading or HTML."""
    from graphs.solve import solve

    days = "".join(f"2001-01-{d:02d},{d}.5\n" for d in range(1, 29))
    csv = "date,[see](http://evil.example/x) <b>bold</b>\n" + days
    r = solve("Design flow for a road crossing, 100-year", lat=30.0, lon=-40.0, tables={"forged.csv": csv},
              artifact_root=str(tmp_path / "art"))
    assert r.declined
    from aquascope_core.deliverables.report_md import render_markdown

    md = render_markdown(r.report)
    import re

    assert "evil.example" in md  # the header is named, so the user sees which column
    assert not re.search(r"(?<!\\)\]\(http", md) and not re.search(r"(?<!\\)<b>", md)  # escaped: text, not markup
