"""One finding per cause: the findings that follow from another are folded into it as its consequences.

A pure function over a finished report (``fold_causes``), called once at the end of ``check``. Every link is
an explicit rule below, keyed on codes, locations and the settings' recorded histories (never on how alike
two messages read); a finding no rule links stays a cause of its own. The links:

``same-raise``
    One exception reported several times. The resolver reports a raise once per setting its condition
    read (RS001 for ``mamba_scheduler_strategy``, ``disable_radix_cache``, ``speculative_algorithm``):
    those are merged first into one finding (``merge_same_raise``), the settings the others read added as
    evidence lines ("reads disable_radix_cache = False (the parser's default)"). A later layer (log, live)
    that reports the same ``SomethingError: ...`` text as its first evidence is a consequence of the
    earliest layer's finding.
``restates``
    A shellcheck finding that says what an argtrace finding says, on the same line (``RESTATES``): SC2086
    at the very word SH007, SH026, PA029 or PA020 (a required flag a vanished ``$OPTS`` may carry)
    explains, SH018 (a word of the server not known statically) at the very word whose value PA013 names
    by its flag ("the value of --host comes from $ip"), SC2087 on the line of the here-document TP007
    explains, SC1017 (literal carriage return)
    and SC1101 (space after a backslash) beside SH002/SH003; and TP042 (the container's GPUs against the
    parallel sizes) beside PA036 (the GPUs a node gets against the same sizes, with the setting and the
    node count), which read one pod's ``nvidia.com/gpu`` limit at the same container; TP012 (compose left
    an unset ``${MODEL}`` out of a string ``command:``) beside the PA029 it explains.
``broken-command``
    A command the shell split (SH002 CRLF line endings: every continued line of the file; SH003 a space
    after the backslash on line N: line N+1 runs on its own; SH004 a comment inside the continuation on line
    N: line N runs on its own) explains: shellcheck's SC2215 (a flag used as a command name) and SC2188 (a
    redirection without a command) on the split-off line, SH023 (that line fails under ``set -e``), PA001
    refusing the word the split left behind (``' '`` where SH003 points, ``'\\r'`` in a CRLF file; PA001
    quotes the refused word first), and every later finding, outside the cut-off words themselves, whose
    setting was cut off from the server command (its shell observation is ``separated`` at the split-off
    line): PA020 for a required flag, RS001 raised because the written value never arrived, MM001 sized
    with the default instead. The parser's findings *at* the cut-off words ("once these flags reach the
    server: ...", a deprecated or removed flag) stay causes: fixing the line break alone would not fix them.
``folded-continuation``
    A folded YAML block (``>``) whose lines end in ``\\`` (TP021: YAML joins the lines with a space, which
    each backslash then escapes) explains the parser's PA001 for the words it glued a blank to
    (``' --model'``) and for the value after such a word (``'Qwen/...' (after  --model)``), in the same
    launch.
``docker-option``
    A ``docker run`` option written in a manifest's ``command``/``args`` (TP023: ``--shm-size=16g``) explains
    the parser's refusal of that word (PA001 "--shm-size is not a vllm flag", with its guess of a near
    flag), in the same file: the fix is to drop the word and set the container, not to rename it.
``launcher-twice``
    An image whose entrypoint is the server's launcher, given the launcher again (TP010: ``docker run
    vllm/vllm-openai vllm serve MODEL``, the container runs ``vllm serve vllm serve MODEL``) explains the
    parser's refusal of the words the repetition pushed out of place: PA001 for a stray word that is one of
    the entrypoint's or the command's launcher words or stands right after one (``'serve' (after vllm)``,
    ``'MODEL' (after serve)``), or, when the command is a shell (``vllm serve bash -c "..."``), every word
    the parser refuses (PA001) or finds without its value (PA012), in the same file; and the resolution
    layer's RS004 "the command line is refused first (unrecognized
    arguments: ...)" when those are the words it names. One mistake, one finding: the parser's advice for a
    stray word ("quote the value ... or remove the stray word") would remove the model.
``one-word-item``
    A manifest's or compose file's list item that holds a flag and its value (TP011: ``- --dtype auto``, one
    argv word) explains the parser's refusal of that word (PA001 "--dtype auto is not a vllm flag"), in
    the same file.
``stripped-quotes``
    systemd's split of a ``$NAME`` word that removed quotes or backslashes from inside a word (TP083:
    ``Environment='SPEC={"method":"ngram"}'`` with ``--speculative-config $SPEC``) explains the parser's
    refusal of what is left (PA011 "Value {method:ngram} cannot be converted"), at the same line.
``brace-expansion``
    Brace expansion that split an unquoted word (SH022: ``{"image":4,"video":0}`` became ``"image":4`` and
    ``"video":0``) explains the parser's refusal of a word it made, which the parser places at the very
    word (PA001 "'video:0' (after image:4) is not a value of any flag", at the same ``PATH:LINE:COL``), and
    its refusal of the first word as the value of the flag before it (PA009/PA010/PA011 at the flag, whose
    setting the shell observed at the brace word: ``--preferred-sampling-params {"temperature":0.7,...}``
    gives the flag ``temperature:0.7``, "invalid json.loads value", sglang#15665), in the same launch:
    quoting the word removes them all (the guide of gongjiyun's "wrong example", batch cases12).
``split-json``
    An unquoted JSON that the shell split at its blanks and took the double quotes from (PA011 whose fix
    says so: ``--mm-processor-kwargs {"max_pixels": $MAX_PIXELS}`` gives the flag ``{max_pixels:``)
    explains the parser's refusal of the words its blanks cut off (PA001 "'1003520}' (after {max_pixels:)
    is not a value of any flag"), each after the one before, in the same server start: one word to quote.
``model-written-twice``
    ``vllm serve M ... --model M2`` (PA056 as an error: the release moves M2 to the positional model)
    explains the parser's refusal of the positional written first (PA001 "'M' (after M2) is not a value of
    any flag"), in the same server start: one model too many.
``one-plugin``
    Flags of one plugin the parser refuses (PA001 "--omni is not a vllm 0.16.0 flag: it is vllm-omni's
    (...)"), with the same fix (install the plugin's matching release), in the same launch: the first is
    the cause, the others follow from it (vllm-omni#1592 wrote two).
``too-few-gpus``
    RS005 (the parallel sizes need more GPUs than ``--gpu`` gives) explains the memory layer's MM007 on the
    same count and the framework's own refusal on the fake device (an RS001 whose recorded condition reads
    ``device_count()``, vLLM's "World size (4) is larger than the number of available GPUs (2)"): one
    cause, with the framework's words kept as a consequence.
``lost-value``
    An expansion that removed a flag's value (SH007: an unset ``$2`` or caller's ``$PORT``; SH026: an empty
    unquoted ``$MODEL``; TP007: a here-document that expanded ``$PORT`` locally to nothing; TP012: compose's
    interpolation of an unset ``${PORT}`` in a string ``command:``) explains the
    parser's PA012 (the flag needs a value) and PA020 (the required flag is not given) for that flag; TP012
    on a compose list item (``["--port", "${PORT}"]``, which stays a word, the empty one) and SH007/SH026 on
    a quoted expansion (``--port "$PORT"``: "gets an empty value") explain what the parser says of that
    flag's value ``''`` (PA010 "invalid int value: ''"). An unset variable is one the caller may set: the
    parser's refusal then rests on that assumption too, and is at most a warning (``_resting_on``). The
    cause carries the fix: its own edit, or (fixes/attach.py) the edit of a consequence that re-checking
    proves removes the cause too.
``lost-positional``
    An expansion that vanished where the parser needed a positional (PA029: ``vllm serve $MODEL`` with
    MODEL unset or empty, on a release whose ``model_tag`` is required; ``sglang serve $MODEL``) explains the
    parser's PA020 for that positional and its PA001 "the following arguments are required: model_tag" (or
    the launcher's PA023 "looks for --model-path"), in the same server start.
``literal-reference``
    Kubernetes leaves a ``$(NAME)`` of a variable the container does not define literal (the Container API:
    "If a variable cannot be resolved, the reference in the input string will be unchanged"), so the
    process gets the text ``$(PORT)`` instead of a word that vanished: TP012 names it, and TP013 (the same
    text read as shell syntax) and the parser's findings quoting it (PA010 "invalid int value:
    '$(PORT)'") in the same file are its consequences.
``missing-required``
    With no vanished word to blame, argparse's own refusal (PA001 "the following arguments are required:
    model_tag", what ``vllm serve --model X`` gets from a release whose ``serve`` needs the positional) is
    a consequence of the parser's PA020 for a name it lists, in the same server start: one missing
    argument, one finding.

``taken-slot``
    A flag the release does not know (PA003 "--task was accepted up to vllm 0.12.0", PA001 "--x is not a
    vllm flag") leaves the word after it to argparse's next positional slot (``vllm serve --task embed ...
    MODEL``: model_tag becomes 'embed'); the word that should have filled it is left over (PA001 "... took
    the word after it, 'embed', as model_tag"), in the same server start. One cause: the flag.

Chains are followed to their root: SC2087 restates TP007 and PA012 follows from TP007, so both are TP007's.
Suppressing or fixing a cause covers its consequences: the link is the record of that.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from argtrace.model import LAYERS, SEVERITIES, Evidence, Finding, Report, Setting

# shellcheck (or argtrace) code -> the argtrace codes it restates on the same line (or, for SC2087, the
# here-document's redirection line that TP007's first evidence points at).
RESTATES: Mapping[str, frozenset[str]] = {
    "SC2086": frozenset({"SH007", "SH026", "PA029", "PA020"}),
    "SC2087": frozenset({"TP007"}),
    "SC1017": frozenset({"SH002"}),
    "SC1101": frozenset({"SH003"}),
    "TP042": frozenset({"PA036"}),
    "TP012": frozenset({"PA029"}),
    # the shell's "argument N is not known statically" at the very word whose value the parser's PA013
    # names by its flag ("the value of --host comes from $ip"): one unknown value, said once
    "SH018": frozenset({"PA013"}),
    # shellcheck's "expressions don't expand in single quotes" at the word whose flag PA060 names
    "SC2016": frozenset({"PA060"}),
}
# Codes whose finding says the shell split a command, and what each splits (see ``_split_lines``).
BROKEN_COMMAND = ("SH002", "SH003", "SH004")
# Findings that say a split-off line ran on its own.
SPLIT_OFF_SYMPTOMS = frozenset({"SC2215", "SC2188", "SH023"})
# Parser findings that say a flag lost its value.
LOST_VALUE_SYMPTOMS = frozenset({"PA012", "PA020"})
LOST_VALUE = frozenset({"SH007", "SH026", "SH049", "TP007", "TP012", "TP064"})
_EMPTY_ITEM = "reaches the server as the empty word ''"  # TP012 on a compose list item (compose.py)
# SH007/SH026 on a quoted expansion (`--port "$PORT"`, PORT not set here): the flag gets the empty word
_EMPTY_WORD = "gets an empty value"
_RAISE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit): ")
_READS = re.compile(r"\breads (\w+) = ")
_ARGS_REQUIRED = re.compile(r'^argparse stops with "the following arguments are required: ([^"]+)"')
_BLANK_WORD = re.compile(r"^(?:once these flags reach the server: )?'((?:\\r|\\t| )+)' ")


_PATH_LINE = re.compile(r"^(.*?):(\d+)(?::\d+)?$")


def _path_line(at: str | None) -> tuple[str, int] | None:
    """``PATH:LINE[:COL]`` -> (PATH, LINE); None for locations without a line (``LOG:``/URL ones included).
    Asked of the same few places again and again (each rule's pass over the findings, in a check and again
    in each fix re-check): each answered once (session 36)."""
    if not at:
        return None
    return _place(at)


@functools.lru_cache(maxsize=4096)
def _place(at: str) -> tuple[str, int] | None:
    m = _PATH_LINE.match(at)
    return (m.group(1), int(m.group(2))) if m else None


def _raise_key(finding: Finding) -> str | None:
    first = finding.evidence[0].text if finding.evidence else ""
    return first if _RAISE.match(first) else None


def _flag_names(setting: str, settings: Mapping[str, Setting]) -> set[str]:
    """The flags a setting is written with: its recorded flag, and argparse's own spelling of the dest."""
    names = {"--" + setting.replace("_", "-")}
    known = settings.get(setting)
    if known is not None and known.flag:
        names.add(known.flag)
    return names


def _flags_before_expansions(text: str) -> set[str]:
    """Flags in a written command immediately followed by a ``$`` expansion (``--port $PORT``, quoted or
    not), or joined to one (``--port=$PORT``, ``--port="$PORT"``)."""
    words = text.split()
    joined = {w.split("=", 1)[0] for w in words if w.startswith("--") and "=$" in w.replace('="', "=")}
    return joined | {
        w for w, nxt in itertools.pairwise(words) if w.startswith("-") and nxt.lstrip('"').startswith("$")
    }


class _Links:
    """The parent of each finding (by index) that some rule linked to another."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        self.findings = findings
        self.parent: dict[int, int] = {}

    def link(self, child: int, parent: int) -> None:
        if child != parent and child not in self.parent and not self._reaches(parent, child):
            self.parent[child] = parent

    def _reaches(self, start: int, target: int) -> bool:
        while start in self.parent:
            start = self.parent[start]
            if start == target:
                return True
        return start == target

    def root(self, index: int) -> int:
        while index in self.parent:
            index = self.parent[index]
        return index


def _same_raise(links: _Links) -> None:
    """The same exception text seen by a later layer (the log's, the live server's): the earliest's."""
    first: dict[str, int] = {}
    order = sorted(range(len(links.findings)), key=lambda i: (LAYERS.index(links.findings[i].layer), i))
    for i in order:
        key = _raise_key(links.findings[i])
        if key is None:
            continue
        if key in first:
            links.link(i, first[key])
        else:
            first[key] = i


def merge_same_raise(findings: Sequence[Finding]) -> list[Finding]:
    """One finding per raise site: a layer's findings with the same code, place and exception text (the
    resolver's RS001 once per setting the condition read) become the first, with an evidence line for
    each other setting read."""
    out: list[Finding] = []
    kept: dict[tuple[str, str, str | None, str], int] = {}
    for finding in findings:
        key = _raise_key(finding)
        if key is None:
            out.append(finding)
            continue
        site = (finding.code, finding.layer, finding.at, key)
        if site not in kept:
            kept[site] = len(out)
            out.append(finding)
            continue
        first = out[kept[site]]
        if finding.setting == first.setting:
            continue
        out[kept[site]] = replace(
            first, evidence=(*first.evidence, Evidence(finding.layer, finding.at, _reads(finding, key)))
        )
    return out


def _reads(finding: Finding, raised: str) -> str:
    """``reads SETTING = VALUE (how)``: the part of an RS001 message between the raise site and the
    exception's own text (a value may hold ``: `` itself, so the end is where the exception text starts)."""
    m = _READS.search(finding.message)
    end = finding.message.find(": " + raised.split(": ", 1)[1][:40], m.end()) if m else -1
    if m is None or end < 0:
        return f"reads {finding.setting}"
    return finding.message[m.start() : end]


def _restates(links: _Links) -> None:
    """Link each finding of RESTATES to the first finding of its targets at its line. The targets are
    indexed by where they are once, not searched for each finding: a compose env file of 50,000 lines with an
    unset variable each had as many TP012 findings, and a scan of all findings per finding took minutes (the
    fuzzers of session 29, reproducer ``compose-many-env-file-findings``)."""
    findings = links.findings
    wanted = frozenset().union(*RESTATES.values())
    first: dict[tuple[str, object], int] = {}  # (code, spot) -> the first such finding's index
    for j, other in enumerate(findings):
        if other.code not in wanted:
            continue
        if other.code in ("PA020", "PA013"):  # only the PA020 placed at the vanished `$OPTS` itself, the
            keys: list[object] = [("at", other.at)]  # PA013 at the unknown word itself
        elif other.code == "SH002":  # the whole file
            keys = [("path", p[0]) for p in [_path_line(other.at)] if p is not None]
        elif other.code == "TP007":  # the here-document's redirection line is its first evidence's
            keys = [_path_line(e.at) for e in other.evidence[:1]]
        else:
            keys = [_path_line(other.at)]
        for key in keys:
            if key is not None:
                first.setdefault((other.code, key), j)
    if not first:
        return
    for i, finding in enumerate(findings):
        targets = RESTATES.get(finding.code)
        where = _path_line(finding.at)
        if not targets or where is None:
            continue
        found: list[int] = []
        for code in targets:
            spot: object = (
                ("at", finding.at)
                if code in ("PA020", "PA013")
                else ("path", where[0])
                if code == "SH002"
                else where
            )
            if (at := first.get((code, spot))) is not None:
                found.append(at)
        if found:
            links.link(i, min(found))


def _split_lines(finding: Finding) -> tuple[str, int | None] | None:
    """(path, the line that ran on its own) for a broken-command cause; line None: every line (CRLF)."""
    where = _path_line(finding.at)
    if where is None:
        return None
    path, line = where
    if finding.code == "SH002":
        return path, None
    if finding.code == "SH003":
        return path, line + 1
    return path, line  # SH004: the flag line after the comment


def _broken_command(links: _Links, report: Report) -> None:
    findings = links.findings
    causes = [(i, s) for i, f in enumerate(findings) if f.code in BROKEN_COMMAND if (s := _split_lines(f))]
    if not causes:
        return

    def cause_of(at: str | None) -> int | None:
        """The most specific broken-command cause of a split-off location (a line cause before CRLF)."""
        where = _path_line(at)
        if where is None:
            return None
        for i, (path, line) in causes:
            if path == where[0] and line == where[1]:
                return i
        for i, (path, line) in causes:
            if path == where[0] and line is None:
                return i
        return None

    settings = {s.name: s for s in report.settings}
    for j, finding in enumerate(findings):
        if finding.code in BROKEN_COMMAND:
            continue
        parent: int | None = None
        word = _refused_blank_word(finding)
        if finding.code in SPLIT_OFF_SYMPTOMS:
            parent = cause_of(finding.at)
        elif word is not None:
            # the word the split left behind: `' '` where SH003 points, `'\r'` anywhere in a CRLF file
            where = _path_line(finding.at)
            for i, (path, line) in causes:
                if where is not None and path == where[0]:
                    if (line is None and "\\r" in word) or (
                        line is not None and findings[i].at == finding.at
                    ):
                        parent = i
                        break
        elif finding.layer != "shell" and not _is_separated_start(finding.at, report):
            # (a parser finding at the cut-off words is about those flags once they arrive: its own cause)
            setting = settings.get(finding.setting) if finding.setting else None
            cut = _cut_at(setting)
            if cut is not None:
                parent = cause_of(cut)
        if parent is not None:
            links.link(j, parent)


def _refused_blank_word(finding: Finding) -> str | None:
    """The word of a PA001 that is only blanks or ``\\r`` (PA001 quotes the refused word first, as
    Python's repr, after the separated layer's "once these flags reach the server: ")."""
    if finding.code != "PA001":
        return None
    m = _BLANK_WORD.match(finding.message)
    return m.group(1) if m else None


def _cut_at(setting: Setting | None) -> str | None:
    """Where the setting's flag was cut off from the server command (its shell observation), if it was."""
    if setting is None:
        return None
    for obs in setting.history:
        if obs.layer == "shell" and obs.detail.get("separated"):
            return obs.at
    return None


def _is_separated_start(at: str | None, report: Report) -> bool:
    return at is not None and any(_cut_at(s) == at for s in report.settings)


def _lost_value(links: _Links, report: Report) -> None:
    findings = links.findings
    settings = {s.name: s for s in report.settings}
    lost: list[tuple[int, set[str]]] = []
    for i, f in enumerate(findings):
        if f.code in LOST_VALUE:
            flags: set[str] = set()
            for e in f.evidence[:1]:
                flags |= _flags_before_expansions(e.text)
            lost.append((i, flags))
    for j, f in enumerate(findings):
        # a compose list item compose emptied stays a word, the empty one: what the parser says of `''`
        empty_item = f.layer == "parser" and "''" in f.message
        if (f.code not in LOST_VALUE_SYMPTOMS and not empty_item) or f.setting is None:
            continue
        names = _flag_names(f.setting, settings)
        for i, flags in lost:
            cause = findings[i]
            emptied = _EMPTY_ITEM in cause.message or _EMPTY_WORD in cause.message
            if empty_item and f.code not in LOST_VALUE_SYMPTOMS and not emptied:
                continue
            if flags & names and f.launch == cause.launch:
                links.link(j, i)
                break


def _lost_positional(links: _Links, report: Report) -> None:
    findings = links.findings
    for i, cause in enumerate(findings):
        if cause.code != "PA029" or cause.setting is None:
            continue
        for j, f in enumerate(findings):
            if (f.launch, f.server) != (cause.launch, cause.server):
                continue
            missing = f.code in ("PA020", "PA023") and f.setting == cause.setting
            m = _ARGS_REQUIRED.match(f.message) if f.code == "PA001" else None
            if missing or (m is not None and cause.setting in m.group(1).split(", ")):
                links.link(j, i)


_K8S_LITERAL = re.compile(r"^\$\(([A-Za-z_][A-Za-z0-9_.-]*)\) in container ")


# TP013 of a Dockerfile's exec-form ENTRYPOINT/CMD: the reference the program gets as characters
_EXEC_LITERAL = re.compile(r"reaches the program as the characters `(\$[^`]+)`")


def _literal_reference(links: _Links, report: Report) -> None:
    findings = links.findings
    for i, cause in enumerate(findings):
        m = _K8S_LITERAL.match(cause.message) if cause.code == "TP012" else None
        exec_form = _EXEC_LITERAL.search(cause.message) if cause.code == "TP013" else None
        where = _path_line(cause.at)
        if (m is None and exec_form is None) or where is None:
            continue
        ref = f"$({m.group(1)})" if m is not None else exec_form.group(1) if exec_form else ""
        for j, f in enumerate(findings):
            theirs = _path_line(f.at)
            quoted = ((f.code == "TP013" and j != i) or f.layer == "parser") and ref in f.message
            if quoted and theirs is not None and theirs[0] == where[0]:
                links.link(j, i)


# TP013 of shell syntax in an exec-form argv: the word no shell reads (`>`, `&&`, `2>&1`), and the argv
_EXEC_SHELL_WORD = re.compile(r"no shell runs it, so (\S+) is passed to the program")


def _exec_form_shell_words(links: _Links, report: Report) -> None:
    """PA001 on `>`, its target and what follows it in an exec-form argv are TP013's consequences: the
    argument parser refuses the words only because no shell took them out (one cause, one finding)."""
    findings = links.findings
    for i, cause in enumerate(findings):
        m = _EXEC_SHELL_WORD.search(cause.message) if cause.code == "TP013" else None
        where = _path_line(cause.at)
        if m is None or where is None or not cause.evidence:
            continue
        import shlex  # here: a report without TP013 (every ``log``) never needs it

        try:
            argv = shlex.split(cause.evidence[0].text)
            word = shlex.split(m.group(1))[0]
        except (ValueError, IndexError):
            continue
        if word not in argv:
            continue
        tail = set(argv[argv.index(word) :])
        for j, f in enumerate(findings):
            if (
                f.layer == "parser"
                and f.code != "PA001"
                and repr(word) in f.message
                and _path_line(f.at) == where
            ):
                links.link(j, i)  # a flag's value refused as given: `invalid int value: '${PORT:-30000}'`
                continue
            refused = _REFUSED.match(f.message) if f.code == "PA001" else None
            if refused is None or _path_line(f.at) != where:
                continue
            import ast  # here: a check without such a pair never imports ast (17 M instructions, issue 18)

            try:
                text = ast.literal_eval(f"'{refused.group(1)}'")
            except (ValueError, SyntaxError):
                continue
            if text in tail:
                links.link(j, i)


def _missing_required(links: _Links, report: Report) -> None:
    findings = links.findings
    for i, cause in enumerate(findings):
        if cause.code != "PA020" or cause.setting is None:
            continue
        for j, f in enumerate(findings):
            m = _ARGS_REQUIRED.match(f.message) if f.code == "PA001" else None
            same = (f.launch, f.server) == (cause.launch, cause.server)
            if m is not None and same and cause.setting in m.group(1).split(", "):
                links.link(j, i)


# PA001's opening: the refused word as Python's repr, then where it stands ("(after WORD)", "(at the start)")
_REFUSED = re.compile(r"^'((?:[^'\\]|\\.)*)' \((?:after (.*?)|at the start)\) is not a value of any flag")


def _folded_continuation(links: _Links, report: Report) -> None:
    findings = links.findings
    for i, cause in enumerate(findings):
        if cause.code != "TP021":
            continue
        for j, f in enumerate(findings):
            m = _REFUSED.match(f.message) if f.code == "PA001" and f.launch == cause.launch else None
            # the words an escaped space was glued to (' --model') and the values standing after them
            if m is not None and (m.group(1)[:1].isspace() or (m.group(2) or "")[:1].isspace()):
                links.link(j, i)


def _docker_option(links: _Links, report: Report) -> None:
    findings = links.findings
    for i, cause in enumerate(findings):
        if cause.code != "TP023":
            continue
        where = _path_line(cause.at)
        words = {e.text for e in cause.evidence}
        names = {w.split("=", 1)[0] for w in words}
        for j, f in enumerate(findings):
            theirs = _path_line(f.at)
            if f.layer != "parser" or theirs is None or where is None or theirs[0] != where[0]:
                continue
            # the parser refuses the docker option by name (PA001 "--shm-size is not a vllm flag") or as
            # the word it is (`'--ipc=host'`)
            if any(f.message.startswith(n + " ") for n in names) or any(f"'{w}'" in f.message for w in words):
                links.link(j, i)


_SHELLS = ("bash", "sh", "dash", "zsh", "/bin/bash", "/bin/sh", "/usr/bin/bash")
_ENTRYPOINT = re.compile(r" already has the entrypoint `([^`]+)`")
_REFUSED_FIRST = re.compile(
    r"^resolution skipped: the command line is refused first \(unrecognized arguments: (.*)\)"
)
_ONE_WORD = re.compile(r" item '((?:[^'\\]|\\.)*)' is ONE argv word")


def _launcher_words(command: str) -> set[str]:
    """The words that name the server in a command (TP010's evidence): ``vllm serve``, ``python3 -m
    MODULE``, ``sglang serve``; the program alone otherwise."""
    words = command.split()
    if len(words) > 2 and words[1] == "-m":
        return set(words[:3])
    if len(words) > 1 and words[1] == "serve":
        return set(words[:2])
    return set(words[:1])


def _launcher_twice(links: _Links, report: Report) -> None:
    findings = links.findings
    for i, cause in enumerate(findings):
        m = _ENTRYPOINT.search(cause.message) if cause.code == "TP010" else None
        where = _path_line(cause.at)
        if m is None or where is None:
            continue
        command = cause.evidence[0].text if cause.evidence else ""
        launcher = set(m.group(1).split()) | _launcher_words(command)
        # a shell appended to the launcher (`vllm serve bash -c "..."`): none of its words is for the server
        shell = command.split()[:1] in ([s] for s in _SHELLS)
        refused: set[str] = set()
        for j, f in enumerate(findings):
            theirs = _path_line(f.at)
            if f.layer != "parser" or theirs is None or theirs[0] != where[0]:
                continue
            if shell and f.code in ("PA001", "PA010", "PA011", "PA012"):
                links.link(j, i)
                continue
            word = _REFUSED.match(f.message) if f.code == "PA001" else None
            if word is None:
                continue
            if word.group(1) in launcher or (word.group(2) or "") in launcher:
                links.link(j, i)
                refused.add(word.group(1))
        for j, f in enumerate(findings):
            named = _REFUSED_FIRST.match(f.message) if f.code == "RS004" else None
            if named is not None and refused and set(named.group(1).split()) <= refused:
                links.link(j, i)


def _one_word_item(links: _Links, report: Report) -> None:
    findings = links.findings
    for i, cause in enumerate(findings):
        m = _ONE_WORD.search(cause.message) if cause.code == "TP011" else None
        where = _path_line(cause.at)
        if m is None or where is None:
            continue
        item = m.group(1)
        for j, f in enumerate(findings):
            theirs = _path_line(f.at)
            if f.layer != "parser" or theirs is None or theirs[0] != where[0]:
                continue
            # the parser refuses the item as a flag ("--dtype auto is not a vllm flag") or as a word
            if f.message.startswith(item + " is not a ") or f"'{item}'" in f.message:
                links.link(j, i)


def _one_word_carrier(links: _Links, report: Report) -> None:
    """TP063 (systemd's `${NAME}` hands a variable's words over as one argument) causes the parser's refusal
    of that word, which layers/parser/spaced_words.py words as "one word holding N" at the same line."""
    findings = links.findings
    for i, cause in enumerate(findings):
        where = _path_line(cause.at) if cause.code == "TP063" else None
        if where is None:
            continue
        for j, f in enumerate(findings):
            refused = _REFUSED.match(f.message) if f.code == "PA001" else None
            if refused is not None and _path_line(f.at) == where and " is one word holding " in f.message:
                links.link(j, i)


# TP083: "`$SPEC`: systemd splits SPEC's value as a command line, ..., so the program gets `WORDS`, not ..."
_STRIPPED = re.compile(r"so the program gets `(.*)`, not the value `")


def _stripped_quotes(links: _Links, report: Report) -> None:
    """TP083 (systemd's split of a `$NAME` word removed quotes or backslashes from inside a word) causes
    the parser's refusal of what is left (PA011: vLLM's JSON flag cannot convert `{method:ngram}`) at the
    same line, whose message quotes the stripped word."""
    findings = links.findings
    for i, cause in enumerate(findings):
        m = _STRIPPED.search(cause.message) if cause.code == "TP083" else None
        where = _path_line(cause.at)
        if m is None or where is None:
            continue
        words = [w for w in m.group(1).split(" ") if w]
        for j, f in enumerate(findings):
            if f.layer == "parser" and _path_line(f.at) == where and any(w in f.message for w in words):
                links.link(j, i)


# PA001 for a plugin's flag: "--omni is not a vllm 0.16.0 flag: it is vllm-omni's (vllm-omni 0.14.0-...)"
_PLUGIN_FLAG = re.compile(r"^--[\w.-]+ is not a \S+ \S+ flag: it is (\S+)'s \(")


# The parser's refusals of a flag's value (PA009 not a choice, PA010 not of the type, PA011 not JSON): they
# sit at the flag, so a value the shell made is tied to its cause through the setting's shell observation.
VALUE_REFUSALS = frozenset({"PA009", "PA010", "PA011"})


def _shell_places(setting: Setting | None) -> set[str]:
    """Where the shell produced the words of ``setting``'s value (its shell observations' places)."""
    return {o.at for o in (setting.history if setting else ()) if o.layer == "shell" and o.at}


def _brace_expansion(links: _Links, report: Report) -> None:
    findings = links.findings
    settings = {s.name: s for s in report.settings}
    for i, cause in enumerate(findings):
        if cause.code != "SH022" or cause.at is None or cause.at.count(":") < 2:
            continue  # a word's place has its column: a line alone would take the line's other words
        for j, f in enumerate(findings):
            if f.launch != cause.launch:
                continue
            # the first word the expansion made is the value of the flag before it (``--x {"a":1,"b":2}``
            # gives --x the word a:1): the parser's refusal of that value is at the flag, and the setting's
            # shell observation is at the brace word
            made = f.code in VALUE_REFUSALS and f.setting is not None
            if (f.code == "PA001" and f.at == cause.at) or (
                made and cause.at in _shell_places(settings.get(f.setting or ""))
            ):
                links.link(j, i)


# PA011's fix when the shell split an unquoted JSON at its blanks (parser/json_fixes.py split_json_fix)
_SPLIT_JSON = re.compile(r"^the shell split the JSON at its blanks \((\d+) words\)")
_CONVERTED = re.compile(r"Value (.*?) cannot be converted")


def _split_json(links: _Links, report: Report) -> None:
    findings = links.findings
    for i, cause in enumerate(findings):
        split = _SPLIT_JSON.match(cause.fix or "") if cause.code == "PA011" else None
        value = _CONVERTED.search(cause.message) if split is not None else None
        if split is None or value is None:
            continue
        # the words after the flag's value that the JSON's blanks cut off: each refused after the one before
        after, left = value.group(1), int(split.group(1)) - 1
        while left > 0:
            for j, f in enumerate(findings):
                m = _REFUSED.match(f.message) if f.code == "PA001" else None
                same = (f.launch, f.server) == (cause.launch, cause.server)
                if m is not None and same and m.group(2) == after:
                    links.link(j, i)
                    after = m.group(1)
                    break
            else:
                break
            left -= 1


# PA056 when `vllm serve M ... --model M2` leaves the positional written first over (frameworks/vllm.py)
_LEFT_OVER_MODEL = re.compile(r"so the model written first, '((?:[^'\\]|\\.)*)', is left over")


def _model_written_twice(links: _Links, report: Report) -> None:
    findings = links.findings
    for i, cause in enumerate(findings):
        left = _LEFT_OVER_MODEL.search(cause.message) if cause.code == "PA056" else None
        if left is None:
            continue
        for j, f in enumerate(findings):
            m = _REFUSED.match(f.message) if f.code == "PA001" else None
            same = (f.launch, f.server) == (cause.launch, cause.server)
            if m is not None and same and m.group(1) == left.group(1):
                links.link(j, i)


def _one_plugin(links: _Links, report: Report) -> None:
    findings = links.findings
    first: dict[tuple[int | None, str, str | None], int] = {}
    for j, f in enumerate(findings):
        m = _PLUGIN_FLAG.match(f.message) if f.code == "PA001" else None
        if m is None:
            continue
        # one plugin that is not there (or not the matching release), one fix (install it): one cause
        key = (f.launch, m.group(1), f.fix)
        if key in first:
            links.link(j, first[key])
        else:
            first[key] = j


# PA001 for a word pushed out of the positional by the word after an unknown flag (parser/leftovers.py)
_TAKEN_SLOT = re.compile(r"does not know (\S+), so argparse took the word after it, ")


def _taken_slot(links: _Links, report: Report) -> None:
    findings = links.findings
    for j, f in enumerate(findings):
        m = _TAKEN_SLOT.search(f.message) if f.code == "PA001" else None
        if m is None:
            continue
        flag = m.group(1)
        for i, cause in enumerate(findings):
            same = (cause.launch, cause.server) == (f.launch, f.server) and i != j
            if same and cause.layer == "parser" and cause.message.startswith((f"{flag} ", f"{flag}:")):
                links.link(j, i)
                break


def _too_few_gpus(links: _Links, report: Report) -> None:
    findings = links.findings
    cause = next((i for i, f in enumerate(findings) if f.code == "RS005"), None)
    if cause is None:
        return
    for j, f in enumerate(findings):
        counted = f.code == "MM007" and "GPUs" in f.message and "--gpu" in f.message
        refused = f.code == "RS001" and any("device_count()" in e.text for e in f.evidence)
        if counted or refused:
            links.link(j, cause)


RULES: tuple[Callable[[_Links, Report], None], ...] = (
    lambda links, report: _same_raise(links),
    lambda links, report: _restates(links),
    _lost_value,
    _lost_positional,
    _missing_required,
    _literal_reference,
    _exec_form_shell_words,
    _broken_command,
    _folded_continuation,
    _docker_option,
    _launcher_twice,
    _one_word_item,
    _one_word_carrier,
    _stripped_quotes,
    _brace_expansion,
    _split_json,
    _model_written_twice,
    _one_plugin,
    _too_few_gpus,
    _taken_slot,
)


def _severity_rank(finding: Finding) -> int:
    return SEVERITIES.index(finding.severity)


def group_severity(finding: Finding) -> int:
    """The most severe rank (0 = error) of a cause and its consequences: what its fixing removes."""
    return min([_severity_rank(finding), *(_severity_rank(c) for c in finding.consequences)])


def diagnosis_order(findings: Sequence[Finding]) -> list[int]:
    """Indexes of ``findings`` most severe first (with their consequences), then earliest layer, then as
    reported."""
    return sorted(
        range(len(findings)),
        key=lambda i: (group_severity(findings[i]), LAYERS.index(findings[i].layer), i),
    )


def fold_causes(report: Report) -> list[Finding]:
    """The report's findings as causes, in their reported order, each carrying its consequences."""
    findings = merge_same_raise(report.findings)
    links = _Links(findings)
    for rule in RULES:
        rule(links, report)
    children: dict[int, list[int]] = {}
    for child in range(len(findings)):
        if child in links.parent:
            children.setdefault(links.root(child), []).append(child)
    out: list[Finding] = []
    for i, finding in enumerate(findings):
        if i in links.parent:
            continue
        folded = [findings[c] for c in children.get(i, [])]
        if not folded:
            out.append(finding)
            continue
        # a consequence that was itself a cause before this pass keeps its own consequences flat here
        flat: list[Finding] = []
        for f in folded:
            flat.extend([replace(f, consequences=()), *f.consequences])
        if finding.basis == "assumed":
            flat = [_resting_on(f, finding) for f in flat]
        out.append(replace(finding, consequences=(*finding.consequences, *flat)))
    return out


def _resting_on(consequence: Finding, cause: Finding) -> Finding:
    """``consequence`` as resting on what its cause assumed: it follows from the cause, so it holds only
    if the assumption does (an unset ``$MODEL`` assumed empty explains the parser's PA012 and PA020), and
    is at most a warning, like the cause (verdicts.py)."""
    added = tuple(a for a in cause.assumptions if a not in consequence.assumptions)
    assumptions = (*consequence.assumptions, *added)
    severity = "warning" if consequence.severity == "error" else consequence.severity
    return replace(consequence, severity=severity, basis="assumed", assumptions=assumptions)
