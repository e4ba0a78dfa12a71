"""``why`` on argparse's "PROG: error: unrecognized arguments: WORDS": which parser refused the words and
what each word is, from the generated flag lists of every entry point (``frameworks/entrypoints.py``).

argparse's own message has no raise site in a framework's message index (argparse raises it), so without
this the first site was any framework function that prints the same text (SGLang's diffusion
``ServerArgs.from_cli_args``). The parser is found from the program name argparse prints (``vllm``,
``api_server.py``, ``sglang serve``: each entry point's names, generated) or, without one, from the
framework whose parsers know the words. Each word is then placed: a flag of another entry point of the
same framework (vllm#2909: ``--lora-modules`` is the OpenAI server's, never the demo server's, though both
are ``api_server.py``), the other framework's flag with this framework's for the same feature (vllm#13669:
``--lora-path`` is SGLang's; vLLM's is ``--lora-modules``: the hand-checked equivalents first, then the
pairs generated from the two parsers' help texts, ``frameworks/feature_pairs.py``), or a misspelling.
The result is one match, ranked first, in the shape of ``why``'s other matches (``index``:
``entrypoints``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from argtrace.frameworks.entrypoints import (
    EntryPoint,
    commands_taking,
    describe_span,
    entrypoints_for_prog,
    entrypoints_of,
)
from argtrace.frameworks.feature_pairs import resolve_flag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The program name starts only where a run of name characters starts and is read once (possessive): a
# pasted 117 KB run of letters took over 120 s before (every start, every backtrack; probe of session 13).
_UNRECOGNIZED = re.compile(
    r"(?:(?<![\w.-])(?P<prog>[A-Za-z_][\w.-]*+(?: serve)?): )?error: unrecognized arguments: (?P<args>[^\n]+)"
)
_FRAMEWORK_NAME = {"sglang": "SGLang", "vllm": "vLLM"}


@dataclass
class _Word:
    """A flag word the text says the parser refused, and the setting it names, if any."""

    flag: str
    setting: dict[str, Any] | None = None
    says: str = ""


@dataclass
class _Site:
    """A framework whose parser refused the words, with its entry points."""

    framework: str
    refusing: list[EntryPoint]
    words: list[_Word] = field(default_factory=list)


def _frameworks_knowing(flag: str) -> list[str]:
    """The frameworks whose parsers, or whose plugins' parsers (``frameworks/plugins.py``), take ``flag``."""
    from argtrace.frameworks.plugins import plugin_flag
    from argtrace.frameworks.release_index import release_index

    out = []
    for name in ("sglang", "vllm"):
        try:
            if release_index(name).releases_knowing_flag(flag):
                out.append(name)
                continue
        except KeyError:
            pass
        if flag.startswith("--") and plugin_flag(name, flag) is not None:
            out.append(name)
    return out


def _plugin_word(framework: str, flag: str) -> _Word | None:
    """``flag`` when a plugin of ``framework`` adds it (the generated plugin table: vllm-omni's ``--omni``):
    the framework's own parser refused it because the plugin's command did not parse the launch."""
    from argtrace.frameworks.plugins import plugin_flag

    found = plugin_flag(framework, flag) if flag.startswith("--") else None
    if found is None:
        return None
    plugin = found.plugin
    taking = [v for v in found.scripts if found.releases and v in found.releases]
    as_vllm = [v for v in taking if "vllm" in found.scripts[v]]
    commands = "/".join(f"`{c}`" for c in dict.fromkeys(c for v in taking for c in found.scripts[v]))
    says = (
        f"{flag} is not a {_FRAMEWORK_NAME[framework]} flag: it is {plugin}'s ({found.span} add it), read "
        f"only when {plugin}'s own {commands} command parses the launch"
    )
    if found.trigger and flag != found.trigger:
        says += f" with {found.trigger} on the command line"
    says += f"; {_FRAMEWORK_NAME[framework]}'s own parser refused it: {plugin} is not installed"
    if as_vllm:
        span = as_vllm[0] if len(as_vllm) == 1 else f"{as_vllm[0]}-{as_vllm[-1]}"
        says += (
            f", or vLLM was installed after it ({plugin} {span} install their command as `vllm`, and "
            "installing vLLM puts vLLM's back)"
        )
    says += f"; install the {plugin} release of vLLM's major.minor" + (" after vLLM" if as_vllm else "")
    newest = found.scripts.get(taking[-1], ()) if taking else ()
    if plugin in newest:
        says += f", or start it with `{plugin} serve ...`"
    word = _Word(flag, {"name": flag.lstrip("-").replace("-", "_"), "flag": flag, "plugin": plugin}, says)
    return word


def _same_feature(framework: str, other: str, other_dest: str, other_flag: str) -> dict[str, Any] | None:
    """``framework``'s option for what the other framework's ``other_flag`` sets: the hand-checked
    equivalents (a shared dest, ``equivalents.KNOWN_PAIRS``) first, then a generated help-text pair."""
    from argtrace.frameworks.equivalents import equivalent_flags
    from argtrace.frameworks.feature_pairs import same_feature_in
    from argtrace.frameworks.schema import bundled_versions, load_schema

    this = load_schema(framework, bundled_versions(framework, include_user=False)[-1])
    that = load_schema(other, bundled_versions(other, include_user=False)[-1])
    eq = equivalent_flags(this, [that]).get(other_flag)
    spec = this.option(eq) if eq and eq.startswith("--") else None
    if eq and spec is not None:
        basis = (
            f"both parsers store it as {spec.dest}"
            if spec.dest == other_dest
            else "argtrace's table of equivalents (frameworks/equivalents.py)"
        )
        return {"name": spec.dest, "flag": eq, "basis": basis}
    pair = same_feature_in(framework, other_dest)
    if pair is None or other_flag.startswith(("--no-", "--disable-")):
        return None  # a pair's flag turns its feature on, not off
    example = re.search(r"'(\w+=\w+)'", pair.help)
    head = pair.dest.split("_", 1)[0]
    switch = f"--enable-{head}"
    first, last = pair.releases
    return {
        "name": pair.dest,
        "flag": pair.flags[0],
        # the newest release may have moved the option (vLLM 0.33's speculative flags are a JSON config)
        "span": None if this.option(pair.flags[0]) is not None else f"{framework} {first}-{last}",
        "basis": (
            f"a pair read from the two parsers' names and help texts (cosine {pair.cosine:.2f}), not a "
            "checked equivalent"
        ),
        "example": f"{pair.flags[0]} {example.group(1)}" if example else None,
        "switch": switch if this.option(switch) is not None else None,
    }


def _place(framework: str, refusing: Sequence[EntryPoint], flag: str) -> _Word:
    from argtrace.frameworks.schema import bundled_versions, load_schema
    from argtrace.layers.parser.releases import _nearest

    word = _Word(flag)
    fw_name = _FRAMEWORK_NAME[framework]
    refused_by = {e.name for e in refusing}
    takers = [(e, e.releases_taking(flag)) for e in entrypoints_of(framework) if e.name not in refused_by]
    takers = [(e, r) for e, r in takers if r]
    taken_here = [r for e in refusing for r in e.releases_taking(flag)]
    own = resolve_flag(framework, flag)
    if own is not None and takers and not taken_here:
        dest, written, _ = own
        by = commands_taking(takers)
        names = " or ".join(f"`{e.command}`" for e in refusing) or "the program that refused it"
        word.setting = {"name": dest, "flag": written, "named_in_text": True}
        word.says = f"{flag} is taken by {by}, never by {names}: start the program that takes it"
        return word
    other = "vllm" if framework == "sglang" else "sglang"
    theirs = resolve_flag(other, flag)
    if own is None and theirs is not None:
        dest, written, releases = theirs
        how = f"an abbreviation of {written}" if written != flag else "its flag"
        said = (
            f"{flag} is not a {fw_name} flag in any bundled release; it is {_FRAMEWORK_NAME[other]}'s "
            f"({how}, {other} {describe_span(other, releases)})"
        )
        same = _same_feature(framework, other, dest, written)
        if same is not None:
            use = same.get("example") or same["flag"]
            notes = [f"in {same['span']}"] if same.get("span") else []
            if same.get("switch") and same["switch"] != same["flag"]:
                notes.append(f"with {same['switch']}")
            extra = f" ({'; '.join(notes)})" if notes else ""
            said += f"; {fw_name} sets the same feature with {use}{extra}, by {same['basis']}"
            word.setting = {"name": same["name"], "flag": same["flag"], "same_feature_as": written}
        else:
            said += f"; argtrace knows no {fw_name} flag that does the same: remove it"
        word.says = said
        return word
    plugin = _plugin_word(framework, flag) if own is None else None
    if plugin is not None:
        return plugin
    if own is None:
        newest = load_schema(framework, bundled_versions(framework, include_user=False)[-1])
        near = _nearest(flag, newest)
        word.says = f"{flag} is not a {fw_name} flag in any bundled release" + (
            f"; did you mean {near}?" if near else ""
        )
        if near:
            spec = newest.option(near)
            word.setting = {"name": spec.dest if spec else near, "flag": near, "nearest": True}
        return word
    word.setting = {"name": own[0], "flag": own[1], "named_in_text": True}
    span = describe_span(
        framework, sorted(set(taken_here), key=list(refusing[0].releases).index) if refusing else own[2]
    )
    word.says = f"{flag} is taken by {framework} {span}: the release that refused it is not one of them"
    taking = sorted(set(taken_here)) if refusing else list(own[2])
    word.says += _spelled_where_refused(framework, flag, taking)
    return word


def _spelled_where_refused(framework: str, flag: str, taking: Sequence[str]) -> str:
    """How the releases that refuse ``flag`` spell its setting, when they have a spelling (the parser's
    PA003 replacement, layers/parser/releases.py ``_replacement``, read from the newest refusing release
    against the taking ones nearest to it): ``--disable-log-requests`` is ``--no-enable-log-requests`` in
    vLLM 0.17.1-0.32.0 (dgx-spark-inference-stack#13)."""
    from argtrace.frameworks.release_index import release_index
    from argtrace.frameworks.schema import bundled_versions, load_schema, version_key
    from argtrace.layers.parser.releases import _replacement

    every = bundled_versions(framework, include_user=False)
    took = set(taking)
    refused = [v for v in every if v not in took]
    if not refused:
        return ""
    newest = refused[-1]
    # the taking releases on either side of it: a later one may register the same setting under the
    # flag's dest (0.33.0's EnableDisableAction for --enable-log-requests/--disable-log-requests)
    near = [v for v in every if v in took and version_key(v) < version_key(newest)][-1:]
    near += [v for v in every if v in took and version_key(v) > version_key(newest)][:1]
    if not near:
        return ""
    repl = _replacement(flag, load_schema(framework, newest), [load_schema(framework, v) for v in near])
    if repl is None:
        return ""
    knowing = set(release_index(framework).releases_knowing_flag(repl))
    spelled = [v for v in refused if v in knowing]
    if not spelled:
        return ""
    return f"; in {framework} {describe_span(framework, spelled)} the setting is {repl}"


def unrecognized_site(text: str, framework: str | None = None) -> dict[str, Any] | None:
    """The match for argparse's "unrecognized arguments" in ``text``: the parser that refused the words and
    what each is; None when the text is not that message or neither the program nor the words name a
    framework (``--served-model-name`` is a flag of both)."""
    m = _UNRECOGNIZED.search(text)
    if m is None:
        return None
    flags = list(
        dict.fromkeys(w.split("=", 1)[0] for w in m.group("args").split() if re.match(r"--?[A-Za-z]", w))
    )
    prog = m.group("prog") or ""
    if foreign_program(prog):
        return None
    if not flags:
        return None if m.group("args").strip() else _blank_word(prog, text, framework)
    programs = entrypoints_for_prog(prog) if prog else []
    names = {e.framework for e in programs}
    if framework in ("sglang", "vllm"):
        fw: str | None = framework
    elif len(names) == 1:
        fw = next(iter(names))
    else:
        knowing = {name for flag in flags for name in _frameworks_knowing(flag)}
        fw = next(iter(knowing)) if len(knowing) == 1 else None
    if fw is None:
        return _main_module_site(prog, flags, text) if prog == "__main__.py" else None
    programs = [e for e in programs if e.framework == fw] or [e for e in entrypoints_of(fw) if not e.models]
    # a program that takes every word in each of its releases did not refuse them (api_server.py: the
    # OpenAI server takes --lora-modules, so the demo server refused it)
    refusing = [e for e in programs if not all(len(e.releases_taking(f)) == len(e.releases) for f in flags)]
    refusing = refusing or programs
    python = _python_options(m.group("args").split())
    words = [_python_word(fw, f) if f in python else _place(fw, refusing, f) for f in flags]
    return _as_match(fw, prog, refusing, words, text)


# CPython's own command-line options (``python -h``, 3.11): a launcher that puts ``python -u main.py`` after
# the server's script hands them to the server's parser (wsmlby/homl#3: "api_server.py: error: unrecognized
# arguments: -u main.py")
_PYTHON_OPTIONS = frozenset(
    {"-b", "-B", "-d", "-E", "-i", "-I", "-O", "-OO", "-P", "-q", "-s", "-S", "-u", "-v"}
)
_PYTHON_WITH_VALUE = frozenset({"-m", "-W", "-X", "-c"})


def _python_options(words: Sequence[str]) -> set[str]:
    """The words that are Python's own options for starting a script or module: ``-u`` before ``main.py``,
    ``-m`` before a module name; a lone ``-u`` among server flags is not taken for one."""
    out: set[str] = set()
    for i, word in enumerate(words):
        rest = [w for w in words[i + 1 :] if w not in _PYTHON_OPTIONS]
        target = rest[0] if rest else ""
        if word in _PYTHON_WITH_VALUE and word == "-m" and re.fullmatch(r"[A-Za-z_][\w.]*", target):
            out.add(word)
        elif word in _PYTHON_OPTIONS and target.endswith(".py"):
            out.add(word)
    return out


def _python_word(framework: str, flag: str) -> _Word:
    return _Word(
        flag,
        None,
        f"{flag} is the Python interpreter's option (python {flag} SCRIPT), not a "
        f"{_FRAMEWORK_NAME[framework]} flag: the command that started Python was passed on to the server as "
        "its arguments (a wrapper or entrypoint appended it); remove those words from the server's arguments",
    )


def foreign_program(prog: str) -> bool:
    """Whether argparse's program name is a program that is no SGLang or vLLM entry point (``vllm-mlx``):
    its own parser refused the words, whatever flags SGLang or vLLM take. A script's name (``run.py``) is
    not: a user's script may build the framework's parser; ``__main__.py`` is a ``python -m`` launcher's."""
    return bool(prog) and not prog.endswith(".py") and not entrypoints_for_prog(prog)


# a launcher's tag for its child's output before argparse's program name: TokenSpeed PR#163's
# "[smg] __main__.py: error: argument --reasoning-parser: invalid choice" (the child ran `python -m`)
_TAGGED = re.compile(r"\[(?P<tag>[A-Za-z_][\w.-]{0,60})\]\s+__main__\.py: error: ")


def origin_of_parser(text: str) -> dict[str, str] | None:
    """``why``'s ``origin`` for argparse's "PROG: error: unrecognized arguments" (or "argument X: invalid
    choice") of a program that is no entry point of SGLang or vLLM (waybarrios/vllm-mlx#7: ``vllm-mlx``, an
    MLX server with its own CLI); a ``python -m`` child's ``__main__.py`` is named by its launcher's tag."""
    from argtrace.commands.why_choice import _INVALID

    m = _UNRECOGNIZED.search(text) or _INVALID.search(text)
    if m is None:
        return None
    prog = m.group("prog") or ""
    tagged = _TAGGED.search(text)
    if prog == "__main__.py" and tagged is not None:
        prog = tagged.group("tag")
    if not foreign_program(prog):
        return None
    return {
        "origin": f"{prog}'s own argument parser: {prog} is no SGLang or vLLM program (their parsers' "
        "program names are generated: frameworks/entrypoints.py), so what their parsers take does not apply",
        "basis": "wording",
        "evidence": (f"[{prog}] " if tagged is not None and prog == tagged.group("tag") else "")
        + m.group(0).strip(),
        "source": "https://github.com/waybarrios/vllm-mlx/issues/7",
    }


# a blank word refused by argparse: what the shell hands on from a `\` followed by a space at a line's end
BLANK_WORD = (
    "the word the parser refused is blank (only whitespace): a `\\` followed by a space at the end of a line "
    "escapes that space, so the shell passes ' ' as an argument and ends the command there (the next line "
    "runs as a command of its own); delete the blanks after the `\\` (`argtrace check SCRIPT`: SH003)"
)


def _blank_word(prog: str, text: str, framework: str | None) -> dict[str, Any] | None:
    """argparse's "unrecognized arguments:" followed by blanks only (vllm recipes PR#167's
    ``vllm: error: unrecognized arguments:  ``): no flag to place, and the words of the message alone
    match unrelated sites; the parser the program names refused a word of whitespace."""
    names = {e.framework for e in entrypoints_for_prog(prog)} if prog else set()
    fw = framework if framework in ("sglang", "vllm") else (next(iter(names)) if len(names) == 1 else None)
    if fw is None:
        return None
    programs = [e for e in entrypoints_for_prog(prog) if e.framework == fw] or [
        e for e in entrypoints_of(fw) if not e.models
    ]
    match = _as_match(fw, prog, programs, [], text)
    match["fix"] = BLANK_WORD
    return match


def _as_match(
    fw: str, prog: str, refusing: Sequence[EntryPoint], words: Sequence[_Word], text: str
) -> dict[str, Any]:
    from argtrace.frameworks.schema import bundled_versions, load_schema

    newest = load_schema(fw, bundled_versions(fw, include_user=False)[-1])
    parser = newest.parser_info
    first = refusing[0] if refusing else None
    built = (first.where if first is not None else "") or str(parser.get("built_by") or "")
    file, _, line = built.rpartition(":") if ":" in built else (built, "", "")
    releases = list(first.releases) if first is not None else []
    # the parser's place is read from the newest release only: older ones build it elsewhere
    versions = [{"version": releases[-1], "at": built}] if releases and built else []
    settings = [w.setting for w in words if w.setting]
    programs = " or ".join(f"`{e.command}`" for e in refusing)
    return {
        "framework": fw,
        "function": f"{parser.get('class') or 'ArgumentParser'}.parse_args",
        "kind": "raise",
        "exception": "SystemExit",
        "level": None,
        "message": f"{prog + ': ' if prog else ''}error: unrecognized arguments: %s",
        "score": 1.0,
        "specificity": len(text.strip()),
        "how": "parser",
        "file": file or None,
        "line": int(line) if line.isdigit() else None,
        "condition": f"a word no option of {programs}'s parser takes",
        "conditions": [f"a word no option of {programs}'s parser takes"],
        "settings": settings,
        "reads": [],
        "versions": versions,
        "releases": releases,
        "absent_in": [],
        "fix": "; ".join(w.says for w in words),
        "index": "entrypoints",
        "program": prog or None,
        "entrypoints": [e.command for e in refusing],
    }


def _main_module_site(prog: str, flags: Sequence[str], text: str) -> dict[str, Any] | None:
    """argparse's program name is ``__main__.py`` for a ``python -m PACKAGE`` launcher, as Dynamo's worker
    launchers (``python -m dynamo.vllm``) are; neither framework's parsers know the words. Each word is
    placed by Dynamo's generated option table (``frameworks/dynamo.py``, the releases read): a launcher
    option of some releases, or an option no release read, SGLang or vLLM takes (dynamo#3161:
    ``--metrics-endpoint-port``, named by a README after the launcher dropped it)."""
    from argtrace.frameworks.dynamo import _span, package, releases_read, releases_taking

    read = sorted(releases_read(), key=lambda r: [int(p) for p in re.findall(r"\d+", r)])
    says = []
    settings = []
    for flag in flags:
        taking = releases_taking(flag)
        if taking:
            where = "; ".join(f"{name} of Dynamo {_span(r)}" for name, r in taking.items())
            says.append(
                f"{flag} is an option of {where}: the Dynamo release that refused it is not one of them"
            )
            settings.append({"name": flag.lstrip("-").replace("-", "_"), "flag": flag, "named_in_text": True})
        else:
            says.append(
                f"{flag} is taken by no Dynamo worker launcher release read ({read[0]}-{read[-1]}), nor by "
                "any bundled SGLang or vLLM release: remove it"
            )
    return {
        "framework": "dynamo",
        "function": "ArgumentParser.parse_args",
        "kind": "raise",
        "exception": "SystemExit",
        "level": None,
        "message": f"{prog}: error: unrecognized arguments: %s",
        "score": 1.0,
        "specificity": len(text.strip()),
        "how": "parser",
        "file": "argparse.py",  # argparse raises it itself
        "line": None,
        "condition": "a word no option of the launcher's parsers takes",
        "conditions": ["a word no option of the launcher's parsers takes"],
        "settings": settings,
        "reads": [],
        "versions": [],
        "releases": [],
        "absent_in": [],
        "fix": "; ".join(says),
        "index": "dynamo_options",
        "program": prog,
        "entrypoints": ["python -m dynamo.sglang", "python -m dynamo.vllm"],
        "source": package(),
    }
