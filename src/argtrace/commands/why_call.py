"""Python's own TypeError at a call (``Worker.__init__() got an unexpected keyword argument 'x'``): the
callee and the argument it refused, and the sites that may explain it.

No framework writes these words: the interpreter raises them when a call does not fit the callee's
signature. On real reports (vllm#11986, vllm#16339) the caller and the callee came from two releases that
do not fit (a worker class of one build, the engine of another; vLLM and an older llguidance). A site ranked
on the interpreter's words alone (SGLang's ``rank_consensus() got unexpected keyword argument(s)``) is not
where it failed: only a site of the callee the text names is kept. The forms were recorded from CPython
3.11 (tests/test_why_shell.py calls functions to check each form still parses).

The keyword may have any spelling a ``**dict`` gives it (xinference#2525 passes ``'gpu-memory-utilization'``).
When the callee is one of the classes the frameworks build their command lines from (vLLM's ``EngineArgs``
and ``AsyncEngineArgs``, SGLang's ``ServerArgs``: a flag ``--x-y`` is the field ``x_y``), the refused keyword
is placed by the release index (frameworks/release_index.py, from the bundled schemas): the command line's
hyphenated spelling of a field, an option of vLLM's OpenAI server rather than of the engine
(``vllm_frontend_options.json``, scripts/gen_frontend_options.py), a field only some releases have (the
caller and the installed release do not fit, and which releases have it), or a name no bundled release
knows (another engine's option, a fork's field).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A callee starts only where a run of name characters starts, and its run is read once (possessive): a
# pasted 117 KB run of letters took re.search over 120 s before (every start, every backtrack; probe of s13).
_CALLEE = r"(?<![\w.])(?P<callee>[A-Za-z_][\w.]*+)\(\)"
CALL_FORMS = (
    # also as a report's title retells it, without "an" or "argument" (ms-swift#4202:
    # "EngineArgs.__init__() got unexpected keyword 'worker_extension_cls'"); SGLang's own "got unexpected
    # keyword argument(s)" has no quoted name after it
    (
        "unexpected keyword",
        _CALLEE + r" got (?:an )?unexpected keyword(?: argument)? '(?P<arg>[^'\s]+)'",
    ),
    (
        "missing argument",
        _CALLEE + r" missing \d+ required (?:positional|keyword-only) arguments?: '(?P<arg>\w+)'",
    ),
    (
        "too many positional",
        _CALLEE + r" takes (?:from )?\d+ (?:to \d+ )?positional arguments? but \d+ (?:were|was) given",
    ),
    (
        "positional-only as keyword",
        _CALLEE + r" got some positional-only arguments passed as keyword arguments: '(?P<arg>\w+)'",
    ),
    ("multiple values", _CALLEE + r" got multiple values for argument '(?P<arg>\w+)'"),
)


# a call of one of the classes the frameworks build their command lines from, on a quoted source line
_CALLED_CLASS = re.compile(r"\b(EngineArgs|AsyncEngineArgs|ServerArgs)\(")


def call_error(text: str) -> dict[str, Any] | None:
    """The callee, the argument and the kind of Python's call TypeError the text holds; None without one."""
    for kind, pattern in CALL_FORMS:
        m = re.search(pattern, text)
        if m is None:
            continue
        callee, arg = m.group("callee"), m.groupdict().get("arg")
        if callee == "__init__":
            # Python 3.9 and older print no class (`__init__() got ...`): the traceback's source line quoted
            # with it names the class called (LlamaFactory#6654: `AsyncEngineArgs(**engine_args)`)
            called = _CALLED_CLASS.findall(text[: m.start()])
            callee = f"{called[-1]}.__init__" if called else callee
        said = f"argument {arg!r}" if arg else "its positional arguments"
        placed = engine_keyword(callee, arg) if kind == "unexpected keyword" and arg else None
        if placed is not None:
            return {"kind": kind, "callee": callee, "argument": arg, "evidence": m.group(0), **placed}
        meaning = (
            f"Python's own TypeError at a call to {callee}: the caller passed {said} in a way the installed "
            f"{callee} does not take ({kind}); no flag is checked here"
        )
        found: dict[str, Any] = {
            "kind": kind,
            "callee": callee,
            "argument": arg,
            "evidence": m.group(0),
            "meaning": meaning,
            "fix": f"the caller and {callee} come from releases that do not fit: install the releases of the "
            "two packages that go together (the caller's release names the one it needs), or the build "
            "whose own code makes the call",
        }
        owner = _transformers_class(callee)
        if owner is not None:
            cls, table, span = owner
            found["package"] = "transformers"
            found["meaning"] = meaning + (
                f"; {cls} is transformers' class (its {table} table names it in the indexed transformers "
                f"{span}), so the callee's release is the installed transformers'"
            )
            found["fix"] = (
                f"the caller (the serving framework or the model's code) and transformers' {cls} come from "
                "releases that do not fit: install the transformers release the framework's release requires "
                "(its requirements name the range), or the framework release made for the installed "
                "transformers"
            )
        return found
    return None


def _transformers_class(callee: str) -> tuple[str, str, str] | None:
    """``(class, table, releases)`` when the callee's class is one transformers' AutoProcessor or
    AutoTokenizer maps a model type to in the indexed releases (data/transformers_model_types.json,
    scripts/gen_model_types.py: ``PROCESSOR_MAPPING_NAMES``, ``TOKENIZER_MAPPING_NAMES``); GLM-V#8's
    ``Glm4vProcessor.__init__() got multiple values for argument 'tokenizer'`` is transformers 4.57.6's and
    5.23.0's class."""
    from argtrace.commands.why_modeltype import _span, _table

    parts = callee.split(".")
    cls = parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]
    data = _table()
    releases = list(data.get("releases") or ())
    for key, table in (("processor_classes", "AutoProcessor"), ("tokenizer_classes", "AutoTokenizer")):
        found = (data.get(key) or {}).get(cls)
        if found:
            return cls, table, _span([releases[i] for i in found])
    return None


def origin_of_call(text: str) -> dict[str, str] | None:
    """``why``'s ``origin`` entry for Python's call TypeError: the interpreter, by its wording."""
    found = call_error(text)
    if found is None:
        return None
    return {
        "origin": f"Python's interpreter: a call to {found['callee']}"
        + (" (transformers' class)" if found.get("package") == "transformers" else "")
        + " that does not fit its signature",
        "basis": "wording",
        "evidence": found["evidence"],
        "source": "recorded from CPython 3.11 (tests/test_why_shell.py calls functions to check the forms)",
    }


def _names(callee: str) -> set[str]:
    """``Worker.__init__`` also names the class ``Worker``; ``validate_grammar`` names itself."""
    parts = callee.split(".")
    out = {callee, ".".join(parts[-2:])}
    if parts[-1] == "__init__" and len(parts) > 1:
        out.add(parts[-2])
    return out


def keep_callee_sites(groups: list[dict[str, Any]], callee: str) -> list[dict[str, Any]]:
    """The sites of the callee the text names (its function, or its class's ``__init__``); a site
    sharing only the interpreter's words is not where it failed."""
    names = _names(callee)
    return [
        g for g in groups if g["function"] in names or any(g["function"].endswith("." + n) for n in names)
    ]


def render_call(section: Mapping[str, Any]) -> list[str]:
    found = section.get("call")
    if not found:
        return []
    return [f"python: {found['meaning']}", f"  fix: {found['fix']}"]


# the classes whose fields the frameworks' command lines are built from (``--x-y`` is the field ``x_y``)
_ENGINE_CLASSES = {"EngineArgs": "vllm", "AsyncEngineArgs": "vllm", "ServerArgs": "sglang"}
_FRAMEWORK_NAME = {"vllm": "vLLM", "sglang": "SGLang"}


def _a(name: str) -> str:
    return ("an " if name == "SGLang" else "a ") + name  # SGLang is read letter by letter


FRONTEND_OPTIONS = (
    Path(__file__).resolve().parent.parent / "frameworks" / "data" / "vllm_frontend_options.json"
)


def _spans(releases: Sequence[str], chosen: Sequence[str]) -> str:
    """``0.6.6.post1-0.12.0, 0.20.2``: the runs of ``chosen`` in the order of ``releases``."""
    runs: list[list[str]] = []
    previous = -2
    for i, release in enumerate(releases):
        if release not in chosen:
            continue
        if i == previous + 1 and runs:
            runs[-1].append(release)
        else:
            runs.append([release])
        previous = i
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def _frontend_options() -> frozenset[str]:
    data = json.loads(FRONTEND_OPTIONS.read_text())
    return frozenset(data["options"])


@dataclass
class _Fields:
    """The bundled releases of a framework and, per release, ``{field: option string}`` of the class its
    command line is built from (the parser's dests, renamed as ``from_cli_args`` renames them:
    field_names.json); ``deprecated``: per release, the dests of options the release marks deprecated (a
    deprecated option may be kept on the command line after its field went: vLLM 0.10.2-0.16.0's
    ``--disable-log-requests``, whose field became ``enable_log_requests``, LlamaFactory#9503), which are
    not counted as fields; ``frontend``: the names that are options of vLLM's OpenAI server (never the
    engine's)."""

    releases: tuple[str, ...]
    fields: list[dict[str, str]]
    deprecated: list[dict[str, str]]
    frontend: frozenset[str]


def _fields(framework: str) -> _Fields:
    from argtrace.frameworks.schema import _field_names, bundled_versions, load_schema

    releases = tuple(bundled_versions(framework, include_user=False))
    frontend_options = _frontend_options() if framework == "vllm" else frozenset()
    per_release: list[dict[str, str]] = []
    deprecated: list[dict[str, str]] = []
    frontend: set[str] = set()
    for version in releases:
        renames = _field_names(framework, version)
        fields: dict[str, str] = {}
        old: dict[str, str] = {}
        for option in load_schema(framework, version).options:
            field = renames.get(option.dest, option.dest)
            long = [o for o in option.option_strings if o.startswith("--")]
            if not long:
                continue
            if frontend_options.intersection(long):
                frontend.add(field)
            elif option.deprecated:
                old.setdefault(field, long[0])
            else:
                fields.setdefault(field, long[0])
        per_release.append(fields)
        deprecated.append({k: v for k, v in old.items() if k not in fields})
    return _Fields(releases, per_release, deprecated, frozenset(frontend))


# a switch's name and its opposite: a release that renames disable_X to enable_X turns the value around
_OPPOSITES = (("disable_", "enable_"), ("enable_", "disable_"), ("no_", ""))


def _turned_around(
    field: str, releases: Sequence[str], per_release: Sequence[Any], knowing: Sequence[str]
) -> tuple[str, list[str]] | None:
    """The opposite switch (``enable_log_requests`` for ``disable_log_requests``) and the releases that have
    it, when every release that has it lacks ``field`` and it comes after the last that has ``field`` (vLLM
    0.10 turned --disable-log-requests around, vllm#23283); None otherwise."""
    for prefix, other in _OPPOSITES:
        if not field.startswith(prefix):
            continue
        opposite = other + field.removeprefix(prefix)
        having = [r for r, fields in zip(releases, per_release, strict=True) if opposite in fields]
        if (
            having
            and knowing
            and not set(having) & set(knowing)
            and releases.index(having[0]) > releases.index(knowing[-1])
        ):
            return opposite, having
    return None


def engine_keyword(callee: str, arg: str) -> dict[str, Any] | None:
    """What a keyword refused by vLLM's ``EngineArgs``/``AsyncEngineArgs`` or SGLang's ``ServerArgs`` is,
    from the bundled releases' command lines: ``meaning``, ``fix`` and ``basis``; None for another callee."""
    parts = callee.split(".")
    cls = parts[-2] if len(parts) > 1 and parts[-1] == "__init__" else parts[-1]
    framework = _ENGINE_CLASSES.get(cls)
    if framework is None:
        return None
    data = _fields(framework)
    releases, per_release, frontend = data.releases, data.fields, data.frontend
    if not releases:
        return None
    field = arg.replace("-", "_")
    knowing = [r for r, fields in zip(releases, per_release, strict=True) if field in fields]
    kept = [r for r, old in zip(releases, data.deprecated, strict=True) if field in old]
    option = next(
        (f[field] for f in reversed([*data.deprecated, *per_release]) if field in f),
        "--" + field.replace("_", "-"),
    )
    # a deprecated option of that name where no field is: its releases are named apart, as their --help lists
    # it and a command line cannot tell whether it is still a field
    also = (
        f"; {_spans(releases, kept)} {'keeps' if len(kept) == 1 else 'keep'} {option} as a deprecated option "
        "(whether still a field, their command lines do not say)"
        if kept
        else ""
    )
    every = f"{releases[0]}-{releases[-1]}"
    name = _FRAMEWORK_NAME[framework]
    head = f"Python's own TypeError at a call to {callee}: "
    know = "knows" if len(knowing) == 1 else "know"
    if field in frontend and not knowing:
        return {
            "meaning": head + f"{field} is an option of vLLM's OpenAI server (`vllm serve {option}`), not a "
            f"field of the engine's arguments: no {name} release's {cls} takes it, with either spelling",
            "fix": f"take {arg} out of the options given to {cls}; set it on the server's command line "
            f"(`vllm serve ... {option} VALUE`) or in the program that builds the server",
            "basis": "schema",
        }
    if knowing and "-" in arg:
        return {
            "meaning": head + f"{arg!r} is the command line's spelling of the field {field}; a keyword "
            f"argument is the field's own name, with underscores ({name} {_spans(releases, knowing)} {know} "
            f"{option})",
            "fix": f"write {field} instead of {arg} where the option is handed to {cls} (as a keyword, a "
            "configuration key or an extra engine argument)",
            "basis": "schema",
        }
    turned = _turned_around(field, releases, per_release, knowing)
    if knowing and len(knowing) < len(releases) and turned is not None:
        opposite, having = turned
        return {
            "meaning": head
            + f"{name} {_spans(releases, knowing)} {know} the field {field} ({option}){also}; "
            f"{_spans(releases, having)} turned it around into {opposite}: the caller was written for a "
            f"release that has {field}, and the installed {name} is a newer one",
            "fix": f"replace {field} by {opposite} with the opposite value where the options are handed to "
            f"{cls} (or leave both out for the new default), or install {_a(name)} release that has {field} "
            f"({_spans(releases, knowing)})",
            "basis": "schema",
        }
    if knowing and len(knowing) < len(releases):
        lacking = [r for r in releases if r not in knowing and r not in kept]
        return {
            "meaning": head
            + f"{name} {_spans(releases, knowing)} {know} the field {field} ({option})"
            + (f", {_spans(releases, lacking)} do not" if lacking else "")
            + f"{also}: the caller was written for a release that has it, and the installed {name} is "
            f"one without it (bundled releases {every})",
            "fix": f"install {_a(name)} release that has {field} ({_spans(releases, knowing)}), or a release "
            f"of the calling program made for the installed {name}",
            "basis": "schema",
        }
    if knowing:
        return {
            "meaning": head + f"every bundled {name} release ({every}) has the field {field} ({option}): the "
            f"installed {name} is older than {releases[0]} or a build without it, and the caller was "
            "written for a newer one",
            "fix": f"upgrade {name} to the release the calling program names, or install a release of the "
            f"calling program made for the installed {name}",
            "basis": "schema",
        }
    if kept:
        return {
            "meaning": head + f"no bundled {name} release ({every}) has {field} as a current field{also}: "
            f"the caller was written for an older release that had {field}, and the installed {name} has "
            "dropped it",
            "fix": f"install {_a(name)} release up to {kept[-1]} (the last that lists {option}), or a "
            f"release of the calling program made for the installed {name}",
            "basis": "schema",
        }
    return {
        "meaning": head + f"no bundled {name} release ({every}) has a field {field}: the caller was written "
        f"for a {name} older than {releases[0]} or a patched build of it, or it hands {cls} another engine's "
        "option or a misspelt one",
        "fix": f"run the {name} release or build the calling program names in its requirements, or remove "
        f"{arg} from the options given to {cls}",
        "basis": "schema",
    }
