"""A release's start-up that replaces what two settings of the launch ask for, and says so in its log,
evaluated without running it (RS055).

SGLang's argument code logs a warning where it overrides a setting because of another one: "FlashAttention3
only supports fp8_e4m3 if using FP8; Setting attention backend to triton." (``--attention-backend fa3 with
--kv-cache-dtype fp8_e5m2``, sglang#18550: the server starts, on another backend than the one written). The
message index of the bundled releases records each such log call with the if-tests around it;
``scripts/gen_sglang_overrides.py`` keeps those of the argument modules (``server_args.py``,
``arg_groups/``) whose tests read two or more settings and whose words say the release does something else
than asked (disables, sets, switches, falls back, overrides, forces, ignores, adjusts, changes, resets, has
no effect, instead: "EXPERIMENTAL: Radix cache is enabled for decode server" reports a choice the launch
made) in ``frameworks/data/sglang_overrides.json``. A site of the analysed release whose settings the
launch all gives is evaluated here on the parsed values (layers/start_raises.py's evaluator: literals,
and/or/not, comparisons, ``in``); when every test holds, the release logs it at start-up.

Two or more settings, as RS032's combinations: a test of one setting sits in a function whose caller
tested the rest (0.5.14's ``_handle_eagle_family`` logs "Mixed chunked prefill is disabled because of using
eagle speculative decoding." under ``server_args.enable_mixed_chunk`` alone; the algorithm is the caller's
test), so one setting says nothing about the launch. Deprecation warnings are PA005's. ``view.X`` (0.5.19
on: the resolved view of the arguments) is read as the parsed value, like ``cfg.X``: assumed, as the
function's running at every start (its caller's tests are not recorded). A warning whose reason clause alone
names the settings it tests ("Cuda graph is disabled because deepep_mode=`normal`") changes a setting the
launch did not write: a note (``changes_an_unwritten_setting``).
"""

from __future__ import annotations

import functools
import json
import marshal
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from argtrace.model import Evidence, LayerResult, Report
from argtrace.package_data import package_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# what the release says it does instead of what was asked (scripts/gen_sglang_overrides.py keeps a warning
# only with one of these words)
OVERRIDES = re.compile(
    r"\b(?:disabl\w*|setting|set to|switch\w*|fall(?:s|ing)? ?back|fallback|overrid\w*|forc\w*|ignor\w*|"
    r"adjust\w*|chang\w*|reset|no effect|instead)\b",
    re.IGNORECASE,
)


def start_overrides(report: Report) -> LayerResult:
    """RS055 findings: the analysed SGLang release's argument-handling warnings that hold on the launch."""
    from argtrace.layers.start_raises import _given, _options, refuses

    result = LayerResult()
    release = report.framework.release
    if report.framework.name != "sglang" or release is None:
        return result
    if (report.sections.get("resolution") or {}).get("status") not in (None, "skipped"):
        return result  # the resolver ran the code: RS002 says what it changed
    if (report.sections.get("parser") or {}).get("exit_status"):
        return result  # argparse exits before any of it runs
    values = _given(report)
    if len(values) < 2:
        return result
    _, packed = _packed_sites()
    sites = [
        marshal.loads(packed[i]) for i, named in _release_sites(release) if all(n in values for n in named)
    ]
    if not sites:
        return result
    groups = _options("sglang", release)
    seen: set[str] = set()
    for site, tests in sites:
        if site["message"] in seen:
            continue
        holds = refuses(site, "sglang", values, groups, tuple(tests))
        if holds is None or not holds[0] or set(holds[1]) != set(site["named"]):
            continue
        seen.add(site["message"])
        result.findings.append(_finding(report, release, site, holds[1]))
    return result


@functools.lru_cache(maxsize=4)
def _release_sites(release: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """Each site of ``release`` (its place in the packed sites, the settings it names): the index of every
    release's sites read once per release, not once per check (a check and its fix re-checks ask again)."""
    index, _ = _packed_sites()
    return tuple((i, named) for i, (at, named) in enumerate(index) if release in at)


@functools.lru_cache(maxsize=1)
def _sites() -> tuple[Mapping[str, Any], ...]:
    path = package_file("frameworks/data/sglang_overrides.json")
    return tuple(json.loads(path.read_text(encoding="utf-8")).get("sites") or ())


@functools.lru_cache(maxsize=1)
def _packed_sites() -> tuple[tuple[tuple[tuple[str, ...], tuple[str, ...]], ...], Sequence[bytes]]:
    """(each site's releases and the settings it names, each site with its conditions compiled as ``marshal``
    data), kept between runs: parsing the 114 KB data file was ~2 ms of each SGLang check,
    compiling the conditions needs the ``_ast`` node classes (9 M instructions), and a check reads,
    checksums and unpacks only the few sites of its release whose settings it all gives, each a part of the
    kept copy (``resolver/data_parts.py``, issue 18). The data file, the compiler
    (``start_raises.compile_test``) and this module decide the copy."""
    from argtrace.layers import start_raises
    from argtrace.resolver.data_parts import Each, cached_parts

    def build() -> dict[str, Any]:
        out: dict[str, Any] = {"index": [], "sites": Each()}  # each site's (releases, settings); the site
        for site in _sites():
            tests = [start_raises.compile_test(str(c)) for c in site.get("conditions") or ()]
            out["sites"].append(marshal.dumps((dict(site), tests)))
            out["index"].append((list(site["at"]), list(site["named"])))
        return out

    sources = [
        package_file("frameworks/data/sglang_overrides.json"),
        Path(start_raises.__file__),
        Path(__file__),
    ]
    kept = cached_parts("sglang-override-sites", sources, build)
    return tuple((tuple(at), tuple(named)) for at, named in kept["index"]), kept["sites"]


# where a warning gives its reason (`Cuda graph is disabled because deepep_mode=`normal``)
_REASON = re.compile(r"\b(?:because|since|due to)\b", re.IGNORECASE)


def _words_of(setting: str) -> str:
    """A setting as a message may name it (`deepep_mode`, `--deepep-mode`, "deepep mode"), lowercased with
    its separators as blanks; an `enable_`/`disable_` switch by the rest of its name."""
    return re.sub(r"^(?:enable|disable) ", "", re.sub(r"[-_\s`=]+", " ", setting.lower()).strip())


def changes_an_unwritten_setting(message: str, named: list[str]) -> bool:
    """Whether a warning says it changes something the launch did not write: its reason clause names one of
    the settings its tests read and what comes before it (what the release changes) names none of them.
    `Cuda graph is disabled because deepep_mode=`normal`` (sglang 0.4.x) turns CUDA graphs off, a setting
    the prefill launch left at its default, for the DeepEP mode it asked for: what the launch wrote stays.
    `Disable --enable-aiter-allreduce-fusion because deterministic inference is enabled` names the setting
    it replaces; a warning without a reason clause is read as RS055 reads it."""
    parts = _REASON.split(message, maxsplit=1)
    if len(parts) < 2:
        return False
    subject, reason = (" " + re.sub(r"[-_\s`=]+", " ", p.lower()) + " " for p in parts)
    names = [_words_of(n) for n in named]
    return any(f" {n} " in reason for n in names) and not any(f" {n} " in subject for n in names)


def _finding(report: Report, release: str, site: Mapping[str, Any], read: tuple[str, ...]) -> Any:
    from argtrace.layers.start_raises import setting_words
    from argtrace.rules import start_values as rules

    settings, words = setting_words(report, read)
    at = next((s.history[-1].at for s in settings if s is not None and s.history), None)
    where = f"{site['function']}, {site['file']}:{site['at'][release]}"
    flags = [(s.flag if s is not None else None) or n for n, s in zip(read, settings, strict=True)]
    if changes_an_unwritten_setting(site["message"], list(site["named"])):
        # what the launch wrote holds; the release changes a default because of it: a note
        return rules.RS055.finding(
            f"sglang {release} logs {site['message']!r} at start-up because of {', '.join(words)} ({where}): "
            "it changes a setting the launch did not write, and keeps what the launch wrote",
            at=at,
            setting=read[0],
            severity="info",
            evidence=[Evidence("resolution", where, "when: " + " and ".join(site["conditions"]))],
        )
    return rules.RS055.finding(
        f"sglang {release} overrides {', '.join(words)} at start-up: it logs {site['message']!r} ({where})",
        at=at,
        setting=read[0],
        evidence=[Evidence("resolution", where, "when: " + " and ".join(site["conditions"]))],
        fix=f"change {' or '.join(dict.fromkeys(flags))} so the release keeps what you wrote (its message "
        "says what it takes instead)",
    )
