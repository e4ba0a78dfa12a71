"""A log line's prefixes, and the body after them.

Servers and what runs them put prefixes before the text a framework logged: docker compose's service name
(``name  | ``), an outer timestamp (docker's
``2026-05-01 19:08:06.490 | ``, ISO ``...Z``), journald's host and unit, vLLM's process tag ``(APIServer
pid=N)`` and its ``INFO MM-DD HH:MM:SS [file.py:N]``, SGLang's ``[YYYY-mm-dd HH:MM:SS TP0 EP0]`` and ``INFO
server_args.py:123:``, torch's ``[rank0]:``; and what builds on vLLM or wraps it adds (vllm-omni's
``[Stage-0]``, a Rust ``tracing`` prefix, a vLLM prefix a wrapper cut). :func:`split_prefix` takes them off
and keeps what they say (time, process, PID, rank, the module that logged the line); vLLM's times have no
year, given here from the file's modification time (``year_for``, ``clamp_year``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from argtrace.layers.log.dates import datetime, timedelta, timezone
from argtrace.layers.log.lazyre import LazyPattern as _lazy

# docker compose's service name before each line of its output, padded to the longest name: ``qwen3-1  | ``,
# or a ``container_name:`` as it was given, ``vllm-qwen-72b-instruct  | `` (vllm#16514); once, at the start.
_COMPOSE = _lazy(r"^[A-Za-z0-9][\w.-]+ +\| (?! *\|)", needles=(" | ",))
# An outer timestamp: docker's and ISO's (``Z`` or an offset: containerd's CRI log of a Kubernetes container,
# ``2026-06-17T19:50:31.18+02:00 stderr F ``, its stream and its full/partial tag kept out; sglang#28659).
_OUTER_TS = _lazy(
    r"^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+"
    r"(?:\|\s+|(?:stdout|stderr) [FP] )?"
)
# The same ISO time in brackets, as a log collector or CI runner stamps each line it forwards
# (``[2025-10-22T02:06:19.566Z] ERROR 10-21 19:06:19 [core.py:396] ...``, deepseek-ai/DeepSeek-OCR#5;
# ``[2025-11-06T02:08:27.716Z] [2025-11-06 02:08:27] Load weight begin.``, sglang#12031): only with the ``T``
# between date and time, so SGLang's own ``[2025-11-06 02:08:27 TP0]`` is never taken for it.
# A log collector's source name and ``>>`` after its time stamp, before the line it forwards (a Kubernetes
# job's pod: ``[2025-12-18T16:24:02+08:00] leihaodi-qwen3-8b-rl-eagle3-...-cfcd2 >> (SGLangEngine pid=3111)
# [2025-12-18 08:24:01 TP7] Scheduler hit an exception``, THUDM/slime#1177): taken off after an outer time
# only.
_FORWARDED_FROM = _lazy(r"^[A-Za-z0-9][\w.-]* >> ", needles=(" >> ",))
_OUTER_TS_BRACKETED = _lazy(
    r"^\[(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]\s?",
    needles=("[",),
)
# A reply that quotes a log in markdown puts ``> `` before each of its lines, and a quoted blank line
# between them (sglang#12031): taken off before any other prefix. Only ``>`` followed by a blank or the end
# of the line, so a ``>>>`` prompt or ``->`` stays the line's own text.
_QUOTE = _lazy(r"^(?:>(?: |$))+", needles=(">",))
# A CI log viewer's line number and a tab before each line it shows (a Buildkite job log copied with its
# numbers, vllm#35679: ``3597\t(APIServer pid=18801) ERROR 03-01 13:30:11 [serving.py:214] Traceback``): a
# tab after digits alone at the line's start, which no framework prints.
_LINE_NO = _lazy(r"^\d{1,8}\t", needles=("\t",))
# A CI job log copied from its web view with the viewer's gutter, two blanks and a bar before each line
# (vllm-project/vllm-omni#946's Buildkite log: ``  | (EngineCore_DP0 pid=6804) ValueError: No available
# memory for the cache blocks. ...``, ``  | Process SpawnProcess-1:``; vllm#14574's
# ``  | [2025-03-10T15:07:20Z] ERROR ...``): taken off when the line's own text follows it at once; a blank
# or another bar after it is a table's empty cell (a Grafana table's ``  |   | 2026-06-12 ... |``), not
# this gutter.
_CI_GUTTER = "  | "
_GUTTER_NOT_BEFORE = frozenset(" \t|")
# A log service's CSV export, ``timestamp,message`` with the time in milliseconds since the epoch and the
# message quoted when it holds a quote or a comma (a CloudWatch export of a SageMaker endpoint's log,
# aws-samples/amazon-sagemaker-generativeai#111: ``1756144014882,#033[1;36m(APIServer pid=1)#033[0;0m ...``):
# thirteen digits and a comma, which no framework's line starts with.
_EPOCH_CSV = _lazy(r'^(\d{13}),"?', needles=(",",))
# A log service's severity before its ISO time (a cloud logging export: ``ERROR 2026-02-18T14:43:05.82Z
# [severity: ERROR] ``, sglang#18980): the level, then the time, then the tag below.
_SERVICE_LEVEL = _lazy(
    r"^(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY) (?=\d{4}-\d\d-\d\dT)"
)
# What such a service or a process wrapper puts after the outer time: the cloud export's ``[severity:
# ERROR] ``, lemonade's ``[Error] (Process) `` (lemonade-sdk/vllm-rocm#5).
_OUTER_TAG = _lazy(
    r"^(?:\[severity: [A-Z]+\]|\[(?:Trace|Debug|Info|Warning|Error|Fatal|Critical)\] \([\w.]+\))\s+",
    needles=("[",),
)
# What a launcher written in Python puts after the time of its own ``logging`` record when it re-logs its
# child's lines: the default format's ``- NAME - LEVEL - `` (olmocr's ``2025-06-27 12:57:45,345 - __main__ -
# INFO - ``, allenai/olmocr#260) or ``- LEVEL - `` alone, then the stream's tag (eugr/spark-vllm-docker's
# launcher, ``2026-05-29 09:14:45,594 - INFO - [container] (APIServer pid=557) ...``, vllm PR#43410); or a
# wrapper that names the command whose output it forwards, ``[/bin/sh]: `` (Mini-o3#16, Step3-VL-10B#11).
# The tag is one word in brackets, never an SGLang time (``[2025-03-07 23:50:27 TP0]`` holds blanks).
_LAUNCHER_TAG = _lazy(
    r"^(?:- (?:[\w.]+ - )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - (?:\[[\w.-]+\] )?|\[/[\w/.-]+\]: ?)",
    needles=("- ", "[/"),
)
# journald's short format (``journalctl``, syslog): ``MON DD HH:MM:SS HOST UNIT[PID]: ``. The month is
# strftime's ``%b`` in the machine's locale: ``Aug``, ``авг`` (1Cat-vLLM#237's Russian journal), ``août``,
# ``févr.``, ``Mär``: three to five letters of any script, a dot after an abbreviation. A line whose month was
# not English kept the whole prefix, so the process tag after it was never read and the file had "no line
# from a server" (a false LG012 warning on a working launch).
_JOURNAL = _lazy(r"^[^\W\d_]{3,5}\.? [ \d]\d \d\d:\d\d:\d\d \S+ [\w.\-\[\]]+: ")
# ``(EngineCore_DP0 pid=183)``; Ray's ``(RayWorkerWrapper pid=220, ip=10.0.0.2)`` separates its fields
# with commas.
_PROC = _lazy(r"^\((?P<proc>[A-Za-z_][\w]*)(?P<attrs>(?:,? [\w]+=[\w.]+)*)\)\s?", needles=("(",))
# The same tag in brackets, as a launcher's logging format writes it (Step3-VL-10B#11:
# ``[EngineCore_DP0][pid=1242] ERROR 01-22 12:05:33.129 [core.py:1302] ...``, behind ``[2026-01-22
# 20:05:33] [/bin/sh]: ``).
_PROC_BRACKETED = _lazy(r"^\[(?P<proc>[A-Za-z_]\w*)\]\[pid=(?P<pid>\d+)\]\s?", needles=("][pid=",))
# A tag between the process tag and the level that a framework built on vLLM adds (vllm-omni's ``[Stage-0]``).
_STAGE_TAG = _lazy(r"^\[[\w-]+\]\s(?=(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s)", needles=("[",))
# A Rust program that re-logs a child's lines through ``tracing`` (dynamo's worker): ``  INFO
# dynamo_engine_vllm::worker: VLLM: `` after its ISO time; the target is a Rust module path (``::``).
_TRACING = _lazy(r"^(?:TRACE|DEBUG|INFO|WARN|ERROR)\s+\w+(?:::\w+)+: (?:[A-Z]{2,}: )?", needles=("::",))
# The vLLM prefix such a wrapper's own pattern cut, ``pid=N) LEVEL`` lost, the process name, the time and
# the module kept: ``(VllmWorkerProcess 04-23 11:34:24 model_runner.py:1434]``.
_PROC_CUT = _lazy(
    r"^\((?P<proc>[A-Z][A-Za-z]*(?:Process|Worker\w*|EngineCore\w*))\s+(?P<md>\d\d-\d\d) "
    r"(?P<hms>\d\d:\d\d:\d\d)\s+(?P<src>[\w.]+:\d+)\]\s?",
    needles=("(",),
)
_VLLM_LEVEL = _lazy(
    r"^(?P<level>INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+(?P<md>\d\d-\d\d) (?P<hms>\d\d:\d\d:\d\d)(?:\.\d+)?\s+"
    r"(?:\[(?P<src>[^\]]+)\]\s?|(?P<src2>[\w.]+:\d+)\]\s?)"
)
_SGL_TS = _lazy(r"^\[(?P<date>\d{4}-\d\d-\d\d) (?P<hms>\d\d:\d\d:\d\d)(?:\s+(?P<rank>[^\]]*))?\]\s?")
_SGL_LEVEL = _lazy(r"^(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) [\w./]+:\d+: ")
_RANK = _lazy(r"^\[rank\d+\]:\s?", needles=("[rank",))


@dataclass
class Parsed:
    """A log line without its prefixes."""

    body: str
    time: datetime | None = None
    month_day: tuple[int, int, int, int, int] | None = None  # vLLM: month, day, h, m, s (no year)
    proc: str | None = None
    pid: int | None = None
    rank: str | None = None
    src: str | None = None  # vLLM's ``[file.py:N]``: the module that logged the line


def split_prefix(text: str) -> Parsed:
    out = Parsed(body=text)
    s = text
    if s[:1].isdigit():
        if mn := _LINE_NO.match(s):
            s = s[mn.end() :]
        elif me := _EPOCH_CSV.match(s):
            out.time = _epoch_ms(me.group(1))
            s = s[me.end() :]
    if s.startswith(">") and (mq := _QUOTE.match(s)):
        s = s[mq.end() :]
    elif s.startswith(_CI_GUTTER) and s[4:5] not in _GUTTER_NOT_BEFORE:
        s = s[4:]
    mc0 = _COMPOSE.match(s)
    if mc0:
        s = s[mc0.end() :]
    ms = _SERVICE_LEVEL.match(s) if s[:1].isupper() else None
    if ms:
        s = s[ms.end() :]
    m = _OUTER_TS.match(s) or (_OUTER_TS_BRACKETED.match(s) if s.startswith("[") else None)
    if m:
        out.time = _dt(m.group(1), m.group(2))
        s = s[m.end() :]
        if " >> " in s[:256] and (mf := _FORWARDED_FROM.match(s)):
            s = s[mf.end() :]
        mt = _TRACING.match(s)
        if mt:
            s = s[mt.end() :]
        elif s.startswith("[") and (mo := _OUTER_TAG.match(s)):
            s = s[mo.end() :]
        if s[:1] in _LAUNCHER_STARTS and (ml := _LAUNCHER_TAG.match(s)):
            s = s[ml.end() :]
    m2 = _JOURNAL.match(s)
    if m2:
        s = s[m2.end() :]
    m3 = _PROC.match(s)
    if m3:
        out.proc = m3.group("proc")
        pid = re.search(r"pid=(\d+)", m3.group("attrs") or "")
        out.pid = int(pid.group(1)) if pid else None
        s = s[m3.end() :]
        if s.startswith("(") and (m3b := _PROC.match(s)):
            # a second tag: a process forwarding another's lines (vLLM's engine its Ray workers',
            # ``(EngineCore_DP0 pid=183) (RayWorkerWrapper pid=220, ip=10.0.0.2)``; a Ray actor a server's):
            # the inner one names the process that logged
            out.proc = m3b.group("proc")
            pid = re.search(r"pid=(\d+)", m3b.group("attrs") or "")
            out.pid = int(pid.group(1)) if pid else out.pid
            s = s[m3b.end() :]
        mst = _STAGE_TAG.match(s)
        if mst:
            s = s[mst.end() :]
    elif s.startswith("[") and (mb := _PROC_BRACKETED.match(s)):
        out.proc = mb.group("proc")
        out.pid = int(mb.group("pid"))
        s = s[mb.end() :]
    elif s.startswith("(") and (mc := _PROC_CUT.match(s)):
        out.proc = mc.group("proc")
        month, day = (int(x) for x in mc.group("md").split("-"))
        h, mi, se = (int(x) for x in mc.group("hms").split(":"))
        out.month_day = (month, day, h, mi, se)
        out.src = mc.group("src")
        s = s[mc.end() :]
    m4 = _VLLM_LEVEL.match(s)
    if m4:
        month, day = (int(x) for x in m4.group("md").split("-"))
        h, mi, se = (int(x) for x in m4.group("hms").split(":"))
        out.month_day = (month, day, h, mi, se)
        out.src = m4.group("src") or m4.group("src2")
        s = s[m4.end() :]
    stripped = s.lstrip()
    if stripped.startswith("[") and _SGL_TS.match(stripped):
        m5 = _SGL_TS.match(stripped)
        assert m5 is not None
        out.time = _dt(m5.group("date"), m5.group("hms")) or out.time
        out.rank = (m5.group("rank") or "").strip() or None
        s = stripped[m5.end() :]
        if s.startswith("[/") and out.rank is None and (ml := _LAUNCHER_TAG.match(s)):
            # not SGLang's own time but a launcher's, before the command's tag (``[2026-01-22 20:05:33]
            # [/bin/sh]: ``): what follows is the child's line, read as any other
            inner = split_prefix(s[ml.end() :])
            inner.time = inner.time or out.time
            return inner
        m6 = _SGL_LEVEL.match(s)
        if m6:
            s = s[m6.end() :]
    m7 = _RANK.match(s)
    if m7:
        s = s[m7.end() :]
    out.body = s
    return out


_LAUNCHER_STARTS = frozenset("-[")


def _epoch_ms(digits: str) -> datetime | None:
    try:
        return datetime.fromtimestamp(int(digits) / 1000, tz=timezone.utc).replace(tzinfo=None)
    except (ValueError, OverflowError, OSError):
        return None


@lru_cache(maxsize=4096)
def _dt(date: str, hms: str) -> datetime | None:
    try:
        return datetime(
            int(date[0:4]), int(date[5:7]), int(date[8:10]), int(hms[0:2]), int(hms[3:5]), int(hms[6:8])
        )
    except ValueError:
        return None


def _from_month_day(md: tuple[int, int, int, int, int] | None, year: int | None) -> datetime | None:
    if md is None or year is None:
        return None
    try:
        return datetime(year, md[0], md[1], md[2], md[3], md[4])
    except ValueError:
        return None


def year_for(mtime: datetime, launched_after: datetime | None) -> int:
    """The year to give vLLM's year-less timestamps."""
    if launched_after is not None:
        return launched_after.year
    return mtime.year


def clamp_year(dt: datetime, mtime: datetime) -> datetime:
    """A timestamp later than the file's modification time belongs to the year before."""
    if dt - mtime > timedelta(days=2):
        try:
            return dt.replace(year=dt.year - 1)
        except ValueError:
            return dt
    return dt
