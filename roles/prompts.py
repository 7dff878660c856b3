"""The system prompts of the roles that may call a model, and the reply shapes they ask for.

Every prompt asks for one JSON object; the role validates it with its own checks and falls back to
its keyless behaviour when the reply cannot be used. No prompt asks a model for a number: numbers
come from results.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["CONSULTANT_SYSTEM", "METHODOLOGIST_SYSTEM", "INTERPRETER_SYSTEM", "CRITIC_SYSTEM", "AUTHOR_SYSTEM",
           "AUTHOR_FIX_SYSTEM", "FALLBACK_SYSTEM", "REPLY_SCHEMAS", "as_dict", "as_json", "SHIPPED"]

CONSULTANT_SYSTEM = (
    "You are the consultant of a hydrology crew. From the user's problem text, fill the intake of the playbook "
    "given in the JSON. Use only values the text states or clearly implies; leave a field out when the text does "
    "not say it. Reply with one JSON object: {\"intake\": {<field>: <value>, ...}, \"questions\": [<at most three "
    "short questions about what is missing>]}."
)

INTERPRETER_SYSTEM = (
    "You are the interpreter of a hydrology crew. You receive the key numbers of a study, each with the path of "
    "the result it comes from, and the gates. Write a one-sentence claim for each key number worth stating and "
    "the answer to the brief's decision. Quote a number only from the key numbers given, unchanged, and give its "
    "basis path. Reply with one JSON object: {\"findings\": [{\"claim\": str, \"basis\": str}], \"answer\": str}."
)

METHODOLOGIST_SYSTEM = (
    "You are the methodologist of a hydrology crew. You receive the brief, what the site holds, the catalogue of "
    "tools you may use (each with its argument schema, the registry methods it applies and the gates that make "
    "sense on it), the gate checks that exist, and the playbook's own plan as a reference. Compose the study that "
    "answers the brief with the data the site holds: steps in order, each naming a catalogue tool, its arguments "
    "(a later step reads an earlier result as \"{{ result.s1.path }}\" and lists s1 in depends_on), the gates its "
    "result must pass, the registry method it applies, and a rationale saying why the step is there. Use only "
    "tools, arguments, methods and gate checks from the JSON. Write no result: numbers in your prose may only be "
    "arguments, gate values or figures given to you. Each methodology line names the ids of the steps it "
    "describes. Reply with one JSON object of the shape in reply_shape."
)

CRITIC_SYSTEM = (
    "You are the critic of a hydrology crew, reading a draft report as the client's reviewing hydrologist would. "
    "You receive the draft's sections and the compact results (key numbers, gates, what was not established). "
    "List what a reviewer would object to: a claim the results do not support, a quantity named wrongly, a "
    "missing caveat, a grade or word stronger than the evidence. Do not recompute numbers. Reply with one JSON "
    "object: {\"issues\": [{\"section\": <a section id from the draft>, \"severity\": \"blocking\" | \"major\" | "
    "\"minor\", \"problem\": str, \"fix\": str}]} (an empty list when the draft stands)."
)

FALLBACK_SYSTEM = (
    "You are an analyst of a hydrology crew. A step of the approved study failed its gates. You receive the "
    "failed step, the gates with the values they saw, the steps before it, and the catalogue of tools the study "
    "may use. Propose one replacement step (at most three) that would establish what the failed step was for "
    "with a method the data can support, reading earlier results as \"{{ result.sN.path }}\" (listed in "
    "depends_on). Never restate a result. Reply with one JSON object: {\"steps\": [{\"tool\": str, "
    "\"arguments\": {}, \"expects\": [{\"check\": str}], \"depends_on\": [str], \"method\": str, "
    "\"rationale\": str}]}."
)

AUTHOR_FIX_SYSTEM = (
    "You are the author of a consulting hydrologist's report, in the fix round. You receive sections of your "
    "draft and the critic's issues with them. Rewrite only the sections named, fixing each issue; keep every "
    "number exactly as the results give it and introduce none. Reply with one JSON object: "
    "{\"sections\": {<section id>: <markdown prose>}}."
)

AUTHOR_SYSTEM = (
    "You are the author of a consulting hydrologist's report. You receive the compact results of a study, the "
    "critique and the caveats. Write the prose of each section named in the JSON, plainly, for an engineer. Every "
    "number you write must appear in the results given, written as given or rounded; never introduce a number. "
    "Reply with one JSON object: {\"sections\": {<section id>: <markdown prose>}}."
)


REPLY_SCHEMAS = {
    "consultant": {"type": "object", "properties": {
        "intake": {"type": "object"}, "questions": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
        "required": ["intake"]},
    "methodologist": {"type": "object", "properties": {
        "objective": {"type": "string"}, "methodology": {"type": "array", "items": {"type": "object", "properties": {
            "text": {"type": "string"}, "steps": {"type": "array", "minItems": 1, "items": {"type": "string"}}},
            "required": ["text", "steps"]}},
        "assumptions": {"type": "array", "items": {"type": "string"}},
        "steps": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "tool": {"type": "string"}, "title": {"type": "string"},
            "arguments": {"type": "object"}, "rationale": {"type": "string"},
            "expects": {"type": "array", "items": {"type": "object", "required": ["check"]}},
            "depends_on": {"type": "array", "items": {"type": "string"}}, "method": {"type": "string"},
            "optional": {"type": "boolean"}}, "required": ["id", "tool", "arguments", "rationale"]}}},
        "required": ["steps"]},
    "interpreter": {"type": "object", "properties": {
        "findings": {"type": "array", "items": {"type": "object", "properties": {
            "claim": {"type": "string"}, "basis": {"type": "string"}}, "required": ["claim", "basis"]}},
        "answer": {"type": "string"}}, "required": ["findings"]},
    "critic": {"type": "object", "properties": {"issues": {"type": "array", "items": {"type": "object", "properties": {
        "section": {"type": "string"}, "severity": {"enum": ["blocking", "major", "minor"]},
        "problem": {"type": "string"}, "fix": {"type": "string"}}, "required": ["section", "severity", "fix"]}}},
        "required": ["issues"]},
    "analysts": {"type": "object", "properties": {"steps": {"type": "array", "minItems": 1, "maxItems": 3, "items": {
        "type": "object", "properties": {"tool": {"type": "string"}, "arguments": {"type": "object"},
                                         "expects": {"type": "array"}, "depends_on": {"type": "array"},
                                         "method": {"type": "string"}, "rationale": {"type": "string"}},
        "required": ["tool", "arguments"]}}}, "required": ["steps"]},
    "author": {"type": "object", "properties": {"sections": {"type": "object",
                                                             "additionalProperties": {"type": "string"}}},
               "required": ["sections"]},
}

SHIPPED = Path(__file__).with_name("prompts.json")


def as_dict() -> dict:
    """Every role's system prompt and the JSON shape its reply must have."""
    prompts = {"consultant": CONSULTANT_SYSTEM, "methodologist": METHODOLOGIST_SYSTEM,
               "interpreter": INTERPRETER_SYSTEM, "critic": CRITIC_SYSTEM, "author": AUTHOR_SYSTEM,
               "author_fix": AUTHOR_FIX_SYSTEM, "analysts": FALLBACK_SYSTEM}
    return {"roles": {role: {"system": text, "reply_schema": REPLY_SCHEMAS.get(role.split("_")[0])}
                      for role, text in prompts.items()}}


def as_json() -> str:
    """The prompts and reply schemas as one JSON document (for faces that run their own model)."""
    return json.dumps(as_dict(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m roles.prompts [--write]: print (or refresh) the shipped prompts.json
    import sys

    if "--write" in sys.argv[1:]:
        SHIPPED.write_text(as_json(), encoding="utf-8")
    else:
        sys.stdout.write(as_json())
