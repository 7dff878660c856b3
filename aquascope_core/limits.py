"""Every bound on what a user or a host hands in, in one place.

A value over a bound is refused with :class:`LimitError` (an InputError) whose message names the limit, the
value seen and the bound, so the fix is plain. The bounds are generous for real hydrology (two centuries of
daily values, hourly records of decades, a few hundred samples a parameter) and small enough that no input
can make a study run for minutes or take gigabytes:

- YAML (a study file, an edit): size, depth, number of aliases, and no tags beyond plain YAML; every value
  JSON-safe (a date becomes its ISO text; binary data and sets are refused with their line) (:func:`load_yaml`); JSON and nested dicts: depth (:func:`check_depth`).
- Uploads: bytes, rows, columns and cells (:func:`check_upload_bytes`, :func:`check_table_shape`); an XLSX
  sheet's real extent, read in read-only mode, not the dimension it claims; an XLSX archive's unpacked size
  (:func:`check_unpacked_bytes`, so a small zip cannot unpack to gigabytes).
- The brief, follow-ups and answers: characters (:data:`MAX_TEXT_CHARS`) and the longest run of digits
  (:data:`MAX_NUMBER_DIGITS`), through :func:`check_brief`, which every face calls first (the CLI, the Python
  Studio and solve, the graph's input, the MCP tools, the server) so a hostile brief is refused in milliseconds,
  before a checkpointer is opened or a module imported.
- Plan arguments, by name across the catalogue's tools (:func:`argument_errors`): list lengths, bootstrap and
  simulation sizes, return periods.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

from aquascope_core.errors import InputError

__all__ = ["LimitError", "load_yaml", "check_depth", "check_upload_bytes", "check_table_shape", "check_text",
           "argument_errors", "check_arguments", "check_brief", "check_run_input", "MAX_NUMBER_DIGITS", "MAX_YAML_BYTES", "MAX_YAML_DEPTH", "MAX_YAML_ALIASES",
           "MAX_UPLOAD_BYTES", "MAX_UNPACKED_BYTES", "MAX_UNPACKED_WHOLE_BYTES", "check_unpacked_bytes", "MAX_ROWS", "MAX_COLUMNS", "MAX_CELLS", "MAX_TEXT_CHARS", "MAX_LIST_ITEMS",
           "MAX_RETURN_PERIODS", "MAX_RETURN_PERIOD", "MAX_BOOTSTRAP", "MAX_DEPTH"]

MAX_YAML_BYTES = 5_000_000
MAX_YAML_DEPTH = 40
MAX_YAML_ALIASES = 200
MAX_DEPTH = 60                 # nesting of any dict/list a caller hands in (a study dict, a workspace)
MAX_UPLOAD_BYTES = 50_000_000
MAX_UNPACKED_BYTES = 1_000_000_000  # an XLSX's sheets unpacked (streamed: MAX_CELLS cells at ~200 bytes of XML)
MAX_UNPACKED_WHOLE_BYTES = 100_000_000  # its other parts (shared strings, styles), which the reader holds whole
MAX_ROWS = 1_000_000           # 2,700 years of daily values, 114 years of hourly ones
MAX_COLUMNS = 500
MAX_CELLS = 5_000_000
MAX_CELL_CHARS = 10_000
MAX_TEXT_CHARS = 20_000        # a brief, a follow-up, an answer
MAX_NUMBER_DIGITS = 40        # the longest run of digits in a brief (a number no measurement needs more of)
MAX_LIST_ITEMS = 1_000_000     # any list argument written into a plan (values inline in a study file)
MAX_RETURN_PERIODS = 50
MAX_RETURN_PERIOD = 100_000.0
MAX_BOOTSTRAP = 20_000
MAX_SIMULATIONS = 100_000      # Monte Carlo sizes, calibration iterations and the like


class LimitError(InputError):
    """A value over one of aquascope's input bounds; ``limit`` names it."""

    def __init__(self, what: str, value: Any, limit_name: str, bound: Any, *, recovery: str | None = None) -> None:
        self.limit = limit_name
        self.bound = bound
        super().__init__(f"{what} is {value:,} but the limit {limit_name} is {bound:,} (aquascope_core.limits)"
                         if isinstance(value, (int, float)) and not isinstance(value, bool) else
                         f"{what} is {value} but the limit {limit_name} is {bound} (aquascope_core.limits)",
                         argument=what, value=value,
                         recovery=recovery or "Split or shorten the input, or ask for fewer items.")


# -- YAML and nesting ---------------------------------------------------------------------------

def load_yaml(text: str | bytes, *, what: str = "the YAML", error: type = InputError) -> Any:
    """Plain YAML (the safe loader) with bounds on size, depth and aliases: LimitError over a bound, ``error``
    (an AquascopeError class) when the text is not YAML."""
    import yaml

    if isinstance(text, bytes):
        try:
            text = text.decode("utf-16") if text.startswith((b"\xff\xfe", b"\xfe\xff")) else text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise error(f"{what} is not UTF-8 text: {exc}", argument=what,
                             recovery="Save the file as UTF-8.") from None
    if not isinstance(text, str):
        raise InputError.bad_value(what, type(text).__name__, "YAML text")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_YAML_BYTES:
        raise LimitError(f"{what} size in bytes", size, "MAX_YAML_BYTES", MAX_YAML_BYTES)

    class _Bounded(_json_safe_loader()):
        """The safe loader, counting aliases and the nesting depth as it composes the document."""

        def compose_node(self, parent, index):  # noqa: ANN001 - PyYAML's signature
            if self.check_event(yaml.AliasEvent):
                self._aliases = getattr(self, "_aliases", 0) + 1
                if self._aliases > MAX_YAML_ALIASES:
                    raise LimitError(f"the number of aliases in {what}", self._aliases, "MAX_YAML_ALIASES",
                                     MAX_YAML_ALIASES, recovery="Write the values out instead of repeating aliases.")
            self._depth = getattr(self, "_depth", 0) + 1
            try:
                if self._depth > MAX_YAML_DEPTH:
                    raise LimitError(f"the nesting depth of {what}", self._depth, "MAX_YAML_DEPTH", MAX_YAML_DEPTH)
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    loader = None
    try:
        loader = _Bounded(text)  # the reader checks the characters as it is made
        data = loader.get_single_data()
    except LimitError:
        raise
    except _NotJsonSafe as exc:
        raise error(f"{what}, line {exc.line}: {exc.words} (!!{exc.tag}) is not a value a study can hold", argument=what,
                    value=f"line {exc.line}", recovery=exc.fix) from None
    except yaml.YAMLError as exc:
        raise error(f"{what} is not valid YAML: {str(exc)[:300]}", argument=what,
                         recovery="Fix the YAML at the line the message names.") from None
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        raise error(f"{what} cannot be read: {type(exc).__name__}: {str(exc)[:200]}", argument=what,
                         recovery="Fix the value the message names.") from None
    finally:
        if loader is not None:
            loader.dispose()
    # an alias repeated inside a repeated structure multiplies without more aliases: bound the expanded size
    size = _expanded_size(data, {})
    if size > MAX_LIST_ITEMS:
        raise LimitError(f"the number of values {what} expands to", size, "MAX_LIST_ITEMS", MAX_LIST_ITEMS,
                         recovery="Write the values out instead of nesting repeated aliases.")
    return data


class _NotJsonSafe(Exception):
    def __init__(self, tag: str, words: str, fix: str, line: int) -> None:
        super().__init__(tag)
        self.tag, self.words, self.fix, self.line = tag, words, fix, line


_LOADER: list[type] = []


def _json_safe_loader() -> type:
    """The safe loader whose values are all JSON-safe: a date or timestamp (``start: 1990-01-01``) becomes its ISO
    text; ``!!binary``, ``!!set``, ``!!omap`` and ``!!pairs`` are refused with their line."""
    if _LOADER:
        return _LOADER[0]
    import yaml

    class JsonSafeLoader(yaml.SafeLoader):
        pass

    def timestamp(loader: Any, node: Any) -> str:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node).isoformat()

    def refuse(tag: str, words: str, fix: str) -> Any:
        def construct(loader: Any, node: Any) -> Any:
            raise _NotJsonSafe(tag, words, fix, node.start_mark.line + 1)
        return construct

    JsonSafeLoader.add_constructor("tag:yaml.org,2002:timestamp", timestamp)
    for tag, words, fix in (("binary", "binary data", "Write the value as text."),
                            ("set", "a set", "Write it as a list: [a, b]."),
                            ("omap", "an ordered map", "Write it as a plain mapping."),
                            ("pairs", "a list of pairs", "Write it as a plain mapping or a list of lists.")):
        JsonSafeLoader.add_constructor(f"tag:yaml.org,2002:{tag}", refuse(tag, words, fix))
    _LOADER.append(JsonSafeLoader)
    return JsonSafeLoader


def _expanded_size(obj: Any, memo: dict[int, int]) -> int:
    """How many values ``obj`` holds once every shared (aliased) part is counted each time it appears;
    computed once per distinct object, so a billion-laughs document is measured in microseconds."""
    if not isinstance(obj, (Mapping, list, tuple)):
        return 1
    key = id(obj)
    if key not in memo:
        memo[key] = 0  # a cycle counts once
        children = obj.values() if isinstance(obj, Mapping) else obj
        memo[key] = 1 + sum(_expanded_size(c, memo) for c in children)
    return memo[key]


def check_depth(obj: Any, *, what: str = "the input", max_depth: int = MAX_DEPTH) -> None:
    """Refuse nesting deeper than ``max_depth``, without recursion of its own."""
    stack = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Mapping):
            children = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth > max_depth:
            raise LimitError(f"the nesting depth of {what}", depth, "MAX_DEPTH", max_depth)
        stack.extend((c, depth + 1) for c in children if isinstance(c, (Mapping, list, tuple)))


# -- uploads and text -----------------------------------------------------------------------------

def check_upload_bytes(size: int, *, what: str = "the upload") -> None:
    if size > MAX_UPLOAD_BYTES:
        raise LimitError(f"{what} size in bytes", size, "MAX_UPLOAD_BYTES", MAX_UPLOAD_BYTES,
                         recovery="Upload the columns and years the study needs, or a daily (not finer) record.")


def check_unpacked_bytes(sheets: int, others: int, *, what: str = "the archive") -> None:
    """An archive's parts as they unpack (the sizes its directory declares, where the reader stops): its sheets,
    which are streamed, and the other parts, which a reader holds whole."""
    fix = "Save the sheet the study needs as CSV, or as an ordinary workbook."
    if sheets > MAX_UNPACKED_BYTES:
        raise LimitError(f"{what}'s sheets unpacked size in bytes", sheets, "MAX_UNPACKED_BYTES", MAX_UNPACKED_BYTES,
                         recovery=fix)
    if others > MAX_UNPACKED_WHOLE_BYTES:
        raise LimitError(f"{what}'s other parts (shared strings, styles) unpacked size in bytes", others,
                         "MAX_UNPACKED_WHOLE_BYTES", MAX_UNPACKED_WHOLE_BYTES, recovery=fix)


def check_table_shape(rows: int, columns: int, *, what: str = "the table", header: bool = True) -> None:
    """``rows`` counts every row read; with ``header`` the first may be the header, which MAX_ROWS does not count
    (a table of exactly MAX_ROWS data rows and its header fits)."""
    data_rows = rows - 1 if header and rows > 0 else rows
    if data_rows > MAX_ROWS:
        raise LimitError(f"the number of data rows of {what}" + (" (after its header)" if header else ""), data_rows,
                         "MAX_ROWS", MAX_ROWS)
    if columns > MAX_COLUMNS:
        raise LimitError(f"the number of columns of {what}", columns, "MAX_COLUMNS", MAX_COLUMNS)
    if rows * columns > MAX_CELLS:
        raise LimitError(f"the number of cells of {what} ({rows:,} rows x {columns:,} columns)", rows * columns,
                         "MAX_CELLS", MAX_CELLS)


def check_text(text: str, *, what: str = "the text") -> str:
    if len(text) > MAX_TEXT_CHARS:
        raise LimitError(f"the length of {what} in characters", len(text), "MAX_TEXT_CHARS", MAX_TEXT_CHARS,
                         recovery="State the problem in fewer words; bring data as a table (--data).")
    return text


_DIGIT_RUN = re.compile(r"\d{%d,}" % (MAX_NUMBER_DIGITS + 1))


def check_brief(text: Any, *, what: str = "the problem text") -> str:
    """``text`` when it is a brief any face may take: a str of at most MAX_TEXT_CHARS characters with no run of
    more than MAX_NUMBER_DIGITS digits; LimitError (or InputError for a non-text value) otherwise.

    The one check of the words a user hands in, made before anything else (a 10 MB brief costs a len())."""
    if not isinstance(text, str):
        raise InputError.bad_value(what, type(text).__name__, "text")
    check_text(text, what=what)
    run = _DIGIT_RUN.search(text)
    if run is not None:
        n = len(re.match(r"\d+", text[run.start():]).group(0))
        raise LimitError(f"the longest run of digits in {what}", n, "MAX_NUMBER_DIGITS", MAX_NUMBER_DIGITS,
                         recovery="Write numbers as a person would (a value, a year); bring series as a table (--data).")
    return text


def check_run_input(inp: Any, *, what: str = "the run's input") -> None:
    """The graph's input (the state form or chat messages): its nesting, every text a user typed in it
    (``request.text``, ``request.follow_up``, a message's content) through :func:`check_brief`, and the bytes of
    the uploads it carries inline (``tables``, each and together) through :func:`check_upload_bytes`, all before
    the first checkpoint stores them."""
    if not isinstance(inp, Mapping):
        return
    check_depth(inp, what=what)
    tables = inp.get("tables")
    if isinstance(tables, Mapping):
        total = 0
        for name, entry in tables.items():
            original = entry.get("original") if isinstance(entry, Mapping) else None
            data = original.get("data") if isinstance(original, Mapping) else None
            if isinstance(data, (str, bytes)):
                size = len(data) * 3 // 4 if original.get("encoding") == "base64" else len(data)
                check_upload_bytes(size, what=f"the upload {str(name)[:80]!r} in the run's input")
                total += size
        check_upload_bytes(total, what="the uploads in the run's input together")
    request = inp.get("request")
    if isinstance(request, Mapping):
        for key in ("text", "follow_up", "question"):
            if isinstance(request.get(key), str):
                check_brief(request[key], what=f"request.{key}")
    for i, msg in enumerate(inp.get("messages") or [] if isinstance(inp.get("messages"), list) else []):
        content = msg.get("content", msg.get("text")) if isinstance(msg, Mapping) else msg
        parts = content if isinstance(content, list) else [content]
        for part in parts:
            part = part.get("text") if isinstance(part, Mapping) else part
            if isinstance(part, str):
                check_brief(part, what=f"message {i + 1}")


# -- plan arguments ----------------------------------------------------------------------------------

_COUNT_BOUNDS = {"n_bootstrap": MAX_BOOTSTRAP, "n_boot": MAX_BOOTSTRAP, "n_resamples": MAX_BOOTSTRAP,
                 "n_simulations": MAX_SIMULATIONS, "n_samples": MAX_SIMULATIONS, "n_iterations": MAX_SIMULATIONS,
                 "max_iterations": MAX_SIMULATIONS, "maxiter": MAX_SIMULATIONS, "n_starts": 1_000}


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def argument_errors(tool: str, arguments: Mapping[str, Any]) -> list[str]:
    """What in ``arguments`` is over a bound (one message per argument, naming the limit); [] when all fit.

    References (``{{ result.s2.values }}``) are checked once resolved, when the runner calls the tool."""
    errors = []
    for name, value in (arguments or {}).items():
        where = f"{tool} argument {name!r}"
        if isinstance(value, (list, tuple)) and len(value) > MAX_LIST_ITEMS:
            errors.append(f"{where} has {len(value):,} items; the limit MAX_LIST_ITEMS is {MAX_LIST_ITEMS:,}")
            continue
        if isinstance(value, str) and len(value) > MAX_TEXT_CHARS and "{{" not in value:
            errors.append(f"{where} has {len(value):,} characters; the limit MAX_TEXT_CHARS is {MAX_TEXT_CHARS:,}")
        if name in _COUNT_BOUNDS and _is_number(value) and not 1 <= value <= _COUNT_BOUNDS[name]:
            errors.append(f"{where} is {value:,}; it must be from 1 to {_COUNT_BOUNDS[name]:,} (limit "
                          f"{'MAX_BOOTSTRAP' if _COUNT_BOUNDS[name] == MAX_BOOTSTRAP else 'MAX_SIMULATIONS'})")
        if name == "seed" and value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                                     or not 0 <= value < 2 ** 63):
            errors.append(f"{where} is {value!r}; a seed is a whole number from 0 to 2**63 - 1")
        if name in ("return_periods", "return_period"):
            values = value if isinstance(value, (list, tuple)) else [value]
            if name == "return_periods" and isinstance(value, (list, tuple)) and len(value) > MAX_RETURN_PERIODS:
                errors.append(f"{where} lists {len(value):,} return periods; the limit MAX_RETURN_PERIODS is "
                              f"{MAX_RETURN_PERIODS}")
                continue
            bad = [v for v in values if _is_number(v) and not (math.isfinite(v) and 1 < v <= MAX_RETURN_PERIOD)]
            if bad:
                errors.append(f"{where} holds {bad[:3]}; a return period is more than 1 and at most "
                              f"{MAX_RETURN_PERIOD:,.0f} years (limit MAX_RETURN_PERIOD)")
    return errors


def check_arguments(tool: str, arguments: Mapping[str, Any]) -> None:
    """Raise LimitError-like InputError for the first argument over a bound (the runner's check)."""
    errors = argument_errors(tool, arguments)
    if errors:
        raise InputError(errors[0] + ("" if len(errors) == 1 else f" (and {len(errors) - 1} more)"),
                         argument=f"{tool}.arguments", recovery="Ask for fewer or smaller values.")
