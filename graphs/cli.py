"""The `aquascope` command.

    aquascope studio "Design flow for a road crossing, 100-year" --lat 41.10 --lon -74.96 --yes --out DIR
    aquascope studio --resume STUDY_ID --yes            # continue a study from its last checkpoint, from any process
    aquascope studies                                   # the studies, with status (waiting, interrupted, done, ...)
    aquascope assess 41.10 -74.96 --problem flood_risk
    aquascope playbooks list | show ID
    aquascope run study.yaml [--out DIR]                # replay a study with no model
    aquascope studio --resume STUDY_ID --sensitivity    # fork a finished flood study over the reviewer's choices
    aquascope mcp [--checkpoints URL] [--export-dir DIR] [--user NAME]  # the MCP server over stdio
    aquascope export STUDY_ID --out DIR [--format md,html,docx,xlsx,ipynb,zip]   # its files again, from the checkpoint
    aquascope gym bench --agent tree|team|ask           # the benchmark (graphs/gym.py)
    AQUASCOPE_LIVE=1 aquascope fetch --lat 38.96 --lon -76.69 [--station ID] [--what daily,peaks]
    aquascope data                                      # the records held locally (graphs/cli_data.py)

Live data needs both switches: the caller's (--live, or the fetch command itself) and the environment's
(AQUASCOPE_LIVE=1, which an operator leaves unset to keep every study offline).

Exit codes: 0 done (or waiting for you), 2 bad input, 3 declined, 1 an unexpected failure.
Start-up stays light: the engine, the roles and langgraph are imported only by the command that needs them.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, Sequence

__all__ = ["main"]

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_DECLINED = 0, 1, 2, 3


def _err(msg: str) -> None:
    print(f"aquascope: {msg}", file=sys.stderr)


class _Progress:
    """One line per crew event on stderr (the report goes to stdout and files)."""

    WORDS = {"start": "started", "done": "done", "failed": "NOT established", "skipped": "skipped", "brief": "brief ready",
             "inventory": "inventory ready", "plan": "plan ready", "findings": "findings ready", "critique": "critique done",
             "report": "report written", "declined": "declined", "fallback": "trying the fallback", "reused": "reused",
             "model_fallback": "runs keyless (the model could not be used)"}

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet

    def __call__(self, ev: dict[str, Any]) -> None:
        if self.quiet or ev.get("type") != "event":
            return
        word = self.WORDS.get(ev.get("event"))
        if not word or (ev.get("event") == "start" and not ev.get("step") and ev.get("role") != "analysts"):
            return
        step = f" {ev['step']}" if ev.get("step") else ""
        detail = ev.get("detail") or {}
        extra = ""
        if isinstance(detail, dict):
            if detail.get("tool"):
                extra = f" ({detail['tool']})"
            if ev.get("event") in ("failed", "model_fallback") and detail.get("reason"):
                extra = f": {str(detail['reason'])[:160]}"
        print(f"  [{ev.get('role')}]{step} {word}{extra}", file=sys.stderr, flush=True)


def _studio_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kw: dict[str, Any] = {"checkpointer": args.checkpoints, "on_event": _Progress(args.quiet), "owner": _user(args)}
    kw.update(_model_kwargs(args))
    if getattr(args, "live", False):
        kw["live"] = True
    return kw


_USER_HELP = ("act for this user: new studies are stamped with it and only its studies are found "
              "(default AQUASCOPE_USER)")


def _user(args: argparse.Namespace) -> str | None:
    """--user, else AQUASCOPE_USER: the owner stamped on new studies and the only one whose studies are found."""
    return getattr(args, "user", None) or os.environ.get("AQUASCOPE_USER") or None


def _model_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """--model, --base-url, --api-key-env NAME (the key itself is never an argument) and --max-usd."""
    from aquascope_core.errors import InputError

    kw: dict[str, Any] = {}
    if getattr(args, "model", None):
        kw["model"] = args.model
    if getattr(args, "base_url", None):
        kw["base_url"] = args.base_url
    if getattr(args, "api_key_env", None):
        if not os.environ.get(args.api_key_env):
            raise InputError(f"--api-key-env {args.api_key_env}: that environment variable is not set",
                             argument="--api-key-env", value=args.api_key_env,
                             recovery=f"export {args.api_key_env}=... first, or name the variable that holds the key")
        kw["api_key_env"] = args.api_key_env
    if getattr(args, "max_usd", None) is not None:
        if args.max_usd < 0:
            raise InputError.bad_value("--max-usd", args.max_usd, "a budget in USD, 0 or more")
        kw["max_usd"] = args.max_usd
    return kw


def _add_model_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="a litellm model string (e.g. openai/gpt-4o-mini); without it every role runs keyless")
    p.add_argument("--base-url", dest="base_url", help="the model server's URL (an OpenAI-compatible endpoint)")
    p.add_argument("--api-key-env", dest="api_key_env", metavar="NAME",
                   help="the environment variable that holds the model's API key (the key is never an argument)")
    p.add_argument("--max-usd", dest="max_usd", type=float, metavar="USD",
                   help="a budget for model calls; past it the remaining roles run keyless (noted in the report)")


def _print_reply(reply: Any) -> None:
    print(reply.text)


def _stands_without(reply: Any) -> bool:
    """A data request the plan stands without (the basin characteristics for a regression peak)."""
    return reply.kind == "data_request" and bool(((reply.payload or {}).get("request") or {}).get("stands_without"))


def _go_on_without(studio: Any, reply: Any) -> Any:
    """--yes at a data request the plan stands without: nobody is there to bring the data, so the study goes on
    without it, saying so (the report says what the data would have given)."""
    req = reply.payload["request"]
    print(f"Going on without the data the plan asks for (--yes): {req.get('what')}; the study will "
          f"{req.get('without') or 'go on without it'}"
          + (f", graded at most {req['grade_without']}" if req.get("grade_without") else "") + ".", file=sys.stderr)
    return studio.say("continue without")


def _finish(studio: Any, reply: Any, out: str | None, yes: bool) -> int:
    while True:
        if reply.kind == "questions":
            if yes:
                print("Taking the defaults for the open questions (--yes).", file=sys.stderr)
                reply = studio.say("just go")
                continue
            _print_reply(reply)
            print(f"\nStudy {studio.id} waits for your answers. Answer with:\n"
                  f"  aquascope studio \"<your answers>\" --resume {studio.id}\nor take the defaults with:\n"
                  f"  aquascope studio --resume {studio.id} --yes")
            return EXIT_OK
        if reply.kind == "data_request":
            _print_reply(reply)
            if yes and _stands_without(reply):
                reply = _go_on_without(studio, reply)
                continue
            if yes:  # nobody is there to bring the data: the decline stands, naming what would help
                reply = studio.decline()
                break
            print(f"\nStudy {studio.id} waits for data. Bring it with:\n"
                  f"  aquascope studio --resume {studio.id} --data FILE\n"
                  "or state it in words, or go on without it (where the request allows) with:\n"
                  f"  aquascope studio \"continue without\" --resume {studio.id}")
            return EXIT_OK
        if reply.kind == "plan":
            _print_reply(reply)
            if yes:
                print("Plan approved (--yes); running the study.", file=sys.stderr)
                reply = studio.approve()
                continue
            print(f"\nStudy {studio.id} waits for your approval of this plan. Approve and run it with:\n"
                  f"  aquascope studio --resume {studio.id} --yes" + (f" --out {out}" if out else ""))
            return EXIT_OK
        break
    paths = []
    try:
        paths = studio.export(out)
    except Exception as exc:  # noqa: BLE001 - a study without files still has its answer
        logging.getLogger(__name__).debug("export failed: %s", exc)
    if reply.kind == "declined":
        _err(f"declined: {reply.text}")
        if paths:
            print(f"A short report of why is in {paths[-1].parent}.", file=sys.stderr)
        return EXIT_DECLINED
    print(reply.text)
    if paths:
        print(f"\nWrote {_listing(paths)} to {paths[-1].parent}")
    return EXIT_OK


def cmd_sensitivity(args: argparse.Namespace) -> int:
    """studio --sensitivity: run (or resume) a flood study to its report, fork it over the reviewer's choices
    and add the sensitivity table to its report."""
    from graphs.studio import Studio

    kw = _studio_kwargs(args)
    if args.resume:
        studio = Studio.resume(args.resume, out=args.out, **kw)
    else:
        if not args.problem or args.lat is None or args.lon is None:
            _err("--sensitivity needs a finished study (--resume STUDY_ID) or a new one: a problem with --lat and --lon")
            return EXIT_INPUT
        studio = Studio(args.lat, args.lon, out=args.out, radius_km=args.radius, **kw)
        print(f"Study {studio.id}", file=sys.stderr)
    with studio:
        reply = studio._reply() if args.resume else studio.say(args.problem)
        while reply.kind in ("questions", "plan") or _stands_without(reply):
            reply = (studio.say("just go") if reply.kind == "questions" else
                     _go_on_without(studio, reply) if reply.kind == "data_request" else studio.approve())
        if reply.kind != "report":
            return _finish(studio, reply, args.out, True)
        out = studio.sensitivity()
        for row in studio.workspace().report["sections"]:
            if row["id"] == "sensitivity":
                table = row["tables"][0]
                print(" | ".join(table["columns"][:5]))
                for r in table["rows"]:
                    print(" | ".join(str(x) for x in r[:5]))
        print(f"{len(out['forks'])} forks: {', '.join(f.id for f in out['forks'])}", file=sys.stderr)
        return _finish(studio, studio._reply(), args.out or studio.out, True)


def _listing(paths: Sequence[Path]) -> str:
    """The files written, the figures counted rather than listed (the last path is at the top of the folder)."""
    top = paths[-1].parent
    names = [p.name for p in paths if p.parent == top]
    figs = len(paths) - len(names)
    return ", ".join(names) + (f" and {figs} figure files under figures/" if figs else "")


def _check_words(args: argparse.Namespace) -> None:
    """The limits on the words (aquascope_core.limits.check_brief), before anything heavy is imported."""
    from aquascope_core.limits import check_brief

    if getattr(args, "problem", None):
        check_brief(args.problem, what="the problem text")


def cmd_studio(args: argparse.Namespace) -> int:
    _check_words(args)
    from aquascope_core.data.base import validate_point
    from graphs.studio import Studio

    if getattr(args, "sensitivity", False):
        return cmd_sensitivity(args)
    kw = _studio_kwargs(args)
    if args.resume:
        study_id = args.resume
        if Path(study_id).is_file():
            try:
                study_id = json.loads(Path(study_id).read_bytes())["id"]
            except (ValueError, KeyError, TypeError, RecursionError):
                _err(f"--resume {args.resume}: the file is not a workspace.json with an 'id'; give the study id "
                     "(st-...) or the workspace.json aquascope wrote")
                return EXIT_INPUT
        studio = Studio.resume(study_id, out=args.out, **kw)
        with studio:
            if studio.mid_run():  # stopped mid-run (killed, crashed): go on from the last checkpoint
                print(f"Study {studio.id} continues from its last checkpoint.", file=sys.stderr)
                reply = studio.proceed()
            else:
                reply = studio._reply()
            out = args.out or studio.out
            for f in args.data or []:  # the data a waiting study asked for (or more data for a follow-up)
                path = Path(f)
                if not path.is_file():
                    _err(f"--data {f}: no such file; give the path of a CSV or XLSX table")
                    return EXIT_INPUT
                studio.add_table(path.name, path)
            if args.data:
                reply = studio._reply()
            if args.problem:
                reply = studio.say(args.problem) if studio.pending() else studio.follow_up(args.problem)
            return _finish(studio, reply, out, args.yes)
    if args.problem is None or not args.problem.strip():
        _err("the problem text is empty: describe the question, for example "
             "aquascope studio \"Design flow for a road crossing, 100-year\" --lat 41.10 --lon -74.96")
        return EXIT_INPUT
    if args.lat is None or args.lon is None:
        _err("a new study needs a site: give --lat and --lon in decimal degrees (for example --lat 41.10 --lon -74.96)")
        return EXIT_INPUT
    validate_point(args.lat, args.lon)
    out = args.out
    data = {}
    for f in args.data or []:
        path = Path(f)
        if not path.is_file():
            _err(f"--data {f}: no such file; give the path of a CSV or XLSX table")
            return EXIT_INPUT
        data[path.name] = path
    with Studio(args.lat, args.lon, out=out, radius_km=args.radius, data=data, **kw) as studio:
        _announce_after_first_checkpoint(studio)
        reply = studio.say(args.problem)
        studio.on_event(None)  # a run that streamed nothing is announced now
        return _finish(studio, reply, out, args.yes)


def _announce_after_first_checkpoint(studio: Any) -> None:
    """Print the study's id with the run's first event: the studio runs with durability "sync", so by then its
    first checkpoint is on disk and the id is one `--resume` and `aquascope studies` know (a kill before it
    leaves no id printed at all)."""
    progress, said = studio.on_event, []

    def on_event(ev: Any) -> None:
        if not said:
            said.append(True)
            print(f"Study {studio.id}", file=sys.stderr, flush=True)
        if ev is not None and progress is not None:
            progress(ev)

    studio.on_event = on_event


def cmd_studies(args: argparse.Namespace) -> int:
    from graphs.checkpoint import open_checkpointer
    from graphs.graph import compile_graph
    from graphs.studies import list_studies

    with open_checkpointer(args.checkpoints) as saver:
        rows = list_studies(saver, compile_graph(saver), limit=args.limit, owner=_user(args))
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    if not rows:
        print("No studies yet; start one with: aquascope studio \"<the problem>\" --lat LAT --lon LON")
        return EXIT_OK
    for r in rows:
        question = r["question"].replace("\n", " ")
        question = question if len(question) <= 60 else question[:57] + "..."
        print(f"{r['id']:<16} {r['status']:<21} {str(r['when'])[:19]:<19}  {r['site']:<20} {r['last_step']:<24} {question}")
    if any(r["status"] == "interrupted" for r in rows):
        print("\nAn interrupted study continues from its last checkpoint with: aquascope studio --resume ID --yes")
    return EXIT_OK


def cmd_solve(args: argparse.Namespace) -> int:
    _check_words(args)
    from graphs.solve import solve

    if not args.problem or not args.problem.strip():
        _err("the problem text is empty: describe the question, for example "
             "aquascope solve \"Design flow for a road crossing, 100-year\" --lat 41.10 --lon -74.96")
        return EXIT_INPUT
    progress = _Progress(args.quiet)
    mk = _model_kwargs(args)
    if mk.get("api_key_env"):
        mk["api_key"] = f"env:{mk.pop('api_key_env')}"  # a reference the model resolves, never the key
    result = solve(args.problem, lat=args.lat, lon=args.lon, playbook=args.playbook, execute=args.yes,
                   on_event=lambda e: progress({"type": "event", **e}), radius_km=args.radius, **mk)
    if result.declined:
        _err(f"declined: {result.declined_reason}")
        return EXIT_DECLINED
    if args.study:
        Path(args.study).write_text(result.study.to_yaml())
        print(f"Wrote the plan to {args.study}", file=sys.stderr)
    if not args.yes:
        from aquascope_core.deliverables.report_md import plan_markdown

        print(plan_markdown(result.study))
        print("\nRun it with --yes (or replay the written study with: aquascope run STUDY.yaml).")
        return EXIT_OK
    print(result.answer)
    if args.out:
        from aquascope_core.deliverables.report_md import render_markdown

        dest = Path(args.out)
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "report.md").write_text(render_markdown(result.report))
        (dest / "study.yaml").write_text(result.study.to_yaml())
        print(f"\nWrote report.md, study.yaml to {dest}")
    return EXIT_OK


def cmd_assess(args: argparse.Namespace) -> int:
    from aquascope_core.recon import assess_site

    recon = assess_site(args.lat, args.lon, radius_km=args.radius, problem=args.problem,
                        return_period=args.return_period)
    if args.json:
        print(json.dumps(recon, indent=2))
        return EXIT_OK
    print(f"Site {recon['point']['lat']}, {recon['point']['lon']} (radius {recon['radius_km']:g} km)")
    for st in recon["stations"][:10]:
        held = ", ".join(v["variable"] for v in st["variables"] if v.get("usable")) or "metadata only"
        print(f"  {st['distance_km']:7.1f} km  {st['source']} {st['station_id']}  {st['name']}  [{held}]")
    if recon["sufficiency"]:
        print("Methods:")
        for row in recon["sufficiency"]:
            print(f"  {row['status']:<15} {row['method']}: {row['reason']}")
    for n in recon["notes"]:
        print(f"Note: {n}")
    return EXIT_OK


def cmd_playbooks(args: argparse.Namespace) -> int:
    from aquascope_core import playbooks

    if args.action == "show":
        if not args.id:
            _err("playbooks show needs an id: aquascope playbooks show flood_risk")
            return EXIT_INPUT
        print(json.dumps(playbooks.describe_playbook(args.id), indent=2))
        return EXIT_OK
    for pb in playbooks.list_playbooks():
        print(f"{pb['id']:<24} {pb['title']}  (branches: {', '.join(pb['branches'])})")
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from aquascope_core.study import Study

    path = Path(args.study)
    if not path.is_file():
        _err(f"no study file at {path}: give the path of a study.yaml (or .json) written by aquascope")
        return EXIT_INPUT
    from aquascope_core.limits import MAX_YAML_BYTES, LimitError

    if path.stat().st_size > MAX_YAML_BYTES:
        raise LimitError(f"the study file {path.name} size in bytes", path.stat().st_size, "MAX_YAML_BYTES", MAX_YAML_BYTES)
    raw = path.read_bytes()
    study = Study.from_json(raw) if path.suffix == ".json" else Study.from_yaml(raw)
    from aquascope_core.catalogue import type_errors

    over = type_errors(study)  # every argument's type and bound and every gate, before any step runs
    if over:
        from aquascope_core.errors import InputError

        raise InputError("; ".join(over[:3]) + (f" (and {len(over) - 3} more)" if len(over) > 3 else ""),
                         argument="study", recovery="Fix the values named in the study file (types, bounds, gates).")
    if (study.plan or {}).get("declined"):
        from aquascope_core.declines import replay_decline

        again = replay_decline(study)
        print(json.dumps(again, indent=2))
        if again["declined"]:
            _err(f"declined: {again['reason']}")
        return EXIT_DECLINED if again["declined"] else EXIT_OK
    from aquascope_core.runner import run_study  # the engine, once the file passed every check

    progress = _Progress(args.quiet)
    run = run_study(study, on_event=lambda e: progress({"type": "event", **e}))
    out = {"ok": run.ok, "summary": run.summary, "failed_steps": run.failed_steps,
           "results": {k: {"status": r.status, "gates": [{"check": g["check"], "passed": g["passed"], "seen": g["seen"]}
                                                         for g in r.gates]} for k, r in run.results.items()}}
    if args.out:
        dest = Path(args.out)
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "run.json").write_text(json.dumps(run.to_dict(), indent=2))
        (dest / "study.yaml").write_text(study.to_yaml())
    print(json.dumps(out, indent=2))
    return EXIT_OK if run.ok else EXIT_DECLINED


def cmd_export(args: argparse.Namespace) -> int:
    from aquascope_core.workspace import validate_study_id

    validate_study_id(args.study_id)  # refused before the checkpointer opens
    from aquascope_core.deliverables.build import _formats
    from graphs.studio import Studio

    formats = _formats(args.format) if args.format else None
    with Studio.resume(args.study_id, checkpointer=args.checkpoints, owner=_user(args)) as studio:
        paths = studio.export(args.out, formats=formats)
        skipped = (studio.workspace().report.get("deliverables") or {}).get("skipped") or []
    for note in skipped:
        print(f"Note: {note}", file=sys.stderr)
    print(f"Wrote {_listing(paths)} to {args.out}")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    from aquascope_core import __version__

    p = argparse.ArgumentParser(prog="aquascope", description="A crew that does a complete hydrology study at a place.")
    p.add_argument("--version", action="version", version=f"aquascope {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log what happens (to stderr)")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("studio", help="run a study with the crew (brief, plan, approval, run, report)")
    s.add_argument("problem", nargs="?", help="the problem in words, e.g. \"Design flow for a road crossing, 100-year\"")
    s.add_argument("--lat", type=float, help="latitude of the site (decimal degrees)")
    s.add_argument("--lon", type=float, help="longitude of the site (decimal degrees)")
    s.add_argument("--radius", type=float, default=50.0, help="search radius for stations, km (default 50)")
    s.add_argument("--yes", action="store_true", help="take the defaults and approve the plan without stopping")
    s.add_argument("--out", help="folder for the report (md, html, docx), the workbook, the notebook, the figures and the zip")
    s.add_argument("--resume", metavar="STUDY_ID", help="continue a study by its id (or its workspace.json)")
    s.add_argument("--data", action="append", metavar="FILE",
                   help="a CSV or XLSX table of your own data at the site (repeatable); kept verbatim in the study")
    _add_model_arguments(s)
    s.add_argument("--live", action="store_true", help="allow live data sources (also needs AQUASCOPE_LIVE=1); the nearest USGS gauge's records are fetched into the local store, as aquascope fetch does")
    s.add_argument("--checkpoints", help="checkpointer URL (default sqlite:///$AQUASCOPE_HOME/checkpoints.sqlite)")
    s.add_argument("--user", help=_USER_HELP)
    s.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    s.add_argument("--sensitivity", action="store_true",
                   help="fork the finished flood study over return period, distribution, confidence, a record "
                        "excluded and regional skew; the table joins its report")
    s.set_defaults(func=cmd_studio)

    ls = sub.add_parser("studies", help="list the studies: status, when, site, last step and question")
    ls.add_argument("--checkpoints", help="checkpointer URL (default sqlite:///$AQUASCOPE_HOME/checkpoints.sqlite)")
    ls.add_argument("--limit", type=int, default=50, help="at most this many, most recent first (default 50)")
    ls.add_argument("--user", help=_USER_HELP)
    ls.add_argument("--json", action="store_true", help="one JSON list instead of lines")
    ls.set_defaults(func=cmd_studies)

    so = sub.add_parser("solve", help="plan (and with --yes run) a study in one go, without the conversation")
    so.add_argument("problem", help="the problem in words")
    so.add_argument("--lat", type=float, required=True)
    so.add_argument("--lon", type=float, required=True)
    so.add_argument("--radius", type=float, default=50.0)
    so.add_argument("--playbook", help="a playbook id, when the words alone do not choose it")
    so.add_argument("--yes", action="store_true", help="run the plan and write the report")
    so.add_argument("--out", help="folder for report.md and study.yaml")
    so.add_argument("--study", help="write the plan (study.yaml) here")
    _add_model_arguments(so)
    so.add_argument("-q", "--quiet", action="store_true")
    so.set_defaults(func=cmd_solve)

    a = sub.add_parser("assess", help="what exists at a point and which methods it can defend")
    a.add_argument("lat", type=float)
    a.add_argument("lon", type=float)
    a.add_argument("--radius", type=float, default=50.0)
    a.add_argument("--problem", help="a playbook id, e.g. flood_risk")
    a.add_argument("--return-period", type=float, dest="return_period")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_assess)

    pb = sub.add_parser("playbooks", help="list the playbooks or show one")
    pb.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    pb.add_argument("id", nargs="?")
    pb.set_defaults(func=cmd_playbooks)

    r = sub.add_parser("run", help="replay a study (study.yaml) with no model")
    r.add_argument("study")
    r.add_argument("--out", help="folder for run.json and the study with its results")
    r.add_argument("-q", "--quiet", action="store_true")
    r.set_defaults(func=cmd_run)

    m = sub.add_parser("mcp", help="serve the crew as an MCP server over stdio (needs the mcp extra)")
    m.add_argument("--checkpoints", help="checkpointer URL for studio_* tools (default: the SQLite file)")
    m.add_argument("--export-dir", help="the only folder studio_export writes under (default AQUASCOPE_EXPORT_DIR, "
                                        "else $AQUASCOPE_HOME/exports)")
    m.add_argument("--user", help=_USER_HELP)
    m.set_defaults(func=cmd_mcp)
    ex = sub.add_parser("export", help="write a finished study's files again from its checkpoint")
    ex.add_argument("study_id", metavar="STUDY_ID")
    ex.add_argument("--out", required=True, help="folder to write the files into")
    ex.add_argument("--format", help="comma-separated: md,html,docx,xlsx,ipynb,zip (default all)")
    ex.add_argument("--checkpoints", help="checkpointer URL (default sqlite:///$AQUASCOPE_HOME/checkpoints.sqlite)")
    ex.add_argument("--user", help=_USER_HELP)
    ex.set_defaults(func=cmd_export)
    from graphs.gym import add_parser as add_gym_parser

    add_gym_parser(sub)  # aquascope gym bench | compare | board | tasks
    from graphs.cli_data import add_parsers as add_data_parsers

    add_data_parsers(sub)  # aquascope fetch | data
    return p


def cmd_mcp(args: argparse.Namespace) -> int:
    from graphs.mcp_server import serve

    serve(checkpoints=args.checkpoints, export_dir=args.export_dir, user=_user(args))
    return EXIT_OK


def _delivers(args: argparse.Namespace) -> bool:
    """Whether the command will likely make a study's figures and documents (a study run to its report)."""
    if args.func is cmd_export:
        return True
    if args.func is cmd_studio:
        return bool(args.yes or args.resume or getattr(args, "sensitivity", False))
    return args.func is cmd_solve and bool(args.yes)


# the value of AQUASCOPE_DELIVERABLE_WORKERS asking a one-shot command for one forked deliverables worker
FORK = "fork"


def _deliverable_workers(args: argparse.Namespace) -> None:
    """A one-shot command's figures and documents are made in this process: a one-shot study on two cores gains
    nothing from a worker (benchmarks/bench_cli.py: one forked worker made the cold every-deliverable study about
    1.3x slower by wall clock and 1.5x by CPU seconds than one process, the worker's own numpy and interpreter state
    and the two processes sharing two cores), and workers started on demand cost a cold interpreter and the
    imports again. ``AQUASCOPE_DELIVERABLE_WORKERS=fork`` asks for one worker forked now, while this process has
    a single thread and little imported, which imports the deliverable stack (matplotlib, openpyxl, python-docx)
    and later draws and writes on another core (for a machine with idle cores to spare); it is forked only for a
    command that will make a study's figures and documents. Any other value is the caller's choice as it stands
    (0: this process; N: workers started on demand). A long-lived server keeps its default (workers started once,
    reused by every study)."""
    from aquascope_core.deliverables import workers

    chosen = os.environ.get(workers.ENV, "").strip()
    if chosen and chosen != FORK:  # the caller chose a number (0: everything in this process)
        return
    os.environ[workers.ENV] = "0"
    if chosen == FORK and _AS_PROGRAM and _delivers(args) and workers.cores() >= 2:  # never for a caller of main()
        workers.fork(1)



def _one_shot_gc() -> None:
    """A one-shot command collects young garbage less often and never scans the old generation again: its
    imports and its study leave a quarter of a million long-lived objects, and each full collection walked them
    all (5 collections, about 0.45 CPU s of a cold study); nothing of it outlives the command. Set before the
    worker is forked, which inherits it."""
    import gc

    gc.set_threshold(50_000, 20, 1_000)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    from aquascope_core.errors import AquascopeError, DeclinedError, InputError

    if args.func in (cmd_studio, cmd_solve, cmd_run, cmd_export):
        if _AS_PROGRAM:
            _one_shot_gc()
        _deliverable_workers(args)
    try:
        return int(args.func(args) or 0)
    except DeclinedError as exc:
        _err(f"declined: {exc.message}")
        return EXIT_DECLINED
    except InputError as exc:
        _err(f"{exc.message} {exc.recovery if exc.recovery != InputError.default_recovery else ''}".rstrip())
        return EXIT_INPUT
    except AquascopeError as exc:
        _err(f"{exc.message} ({exc.recovery})")
        return EXIT_INPUT if type(exc).__name__ in ("DataNotFoundError", "StudyError", "PlaybookError") else EXIT_FAIL
    except KeyboardInterrupt:
        _err("interrupted; the study's checkpoint is kept, resume it with --resume")
        return 130
    except Exception as exc:  # noqa: BLE001 - a defect still ends in one sentence, never a traceback
        logging.getLogger("aquascope").info("unexpected failure", exc_info=True)
        _err(f"unexpected failure ({type(exc).__name__}: {str(exc)[:300]}); this is a defect in aquascope: "
             "report it with the command and input that caused it (-v shows the details)")
        return EXIT_FAIL


# True when this process is the `aquascope` program (entry); the process-wide choices of a one-shot command (the
# collector's thresholds, a forked worker) are never made for a caller of main() (a test, a notebook, a host).
_AS_PROGRAM = False


def entry() -> None:
    """The `aquascope` program: :func:`main` (with a one-shot command's collector thresholds and, when asked, a
    forked worker, see _one_shot_gc and _deliverable_workers), then an exit without the interpreter's teardown when
    nothing is left running (about 0.8 CPU s of freeing a study's objects and modules one by one): the exit handlers run (the
    workers are stopped, the logs flushed), stdout and stderr are flushed, every file the command wrote is
    closed. With a thread still running it exits normally. ``main`` itself returns (it is called in-process)."""
    global _AS_PROGRAM
    _AS_PROGRAM = True
    code = main()
    import atexit
    import threading

    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if threading.active_count() > 1 or run_exit_handlers is None:
        sys.exit(code)
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said on it
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
