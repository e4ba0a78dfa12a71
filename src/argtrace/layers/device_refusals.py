"""RS036's evaluation (``device_raises.py``'s text says what it finds and why): each device probe's
accepted compute-capability majors, the GPU ``--gpu`` names as they read it, and the release's sites those
refuse; read for a check given a GPU (and by the layers that ask the same table).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from argtrace.model import Evidence, Finding, LayerResult, Report

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported where a test is parsed: a check that parses none never imports ast (issue 18)
    import ast
    from typing import Any

# each probe's accepted compute-capability majors and the CUDA runtime it also needs
# (sglang/srt/utils/common.py: _check_cuda_device_version partials; runtime_context._PLATFORM_PROBES)
_MAJORS: dict[str, tuple[frozenset[int], str]] = {
    "is_sm90_supported": (frozenset({9}), "12.3"),
    "is_hopper_with_cuda_12_3": (frozenset({9}), "12.3"),
    "is_ampere_with_cuda_12_3": (frozenset({8}), "12.3"),
    "is_sm100_supported": (frozenset({10}), "12.8"),
    "is_sm110_supported": (frozenset({11}), "12.8"),
    "is_sm100_or_sm110_supported": (frozenset({10, 11}), "12.8"),
    "is_sm120_supported": (frozenset({12}), "12.8"),
    "is_blackwell_supported": (frozenset({10, 11, 12}), "12.8"),
    "is_blackwell": (frozenset({10, 11, 12}), "12.8"),
}
# get_platform().X -> the probe it calls (runtime_context._PLATFORM_PROBES, 0.5.19 on)
_PLATFORM = {
    "is_sm90": "is_sm90_supported",
    "is_sm100": "is_sm100_supported",
    "is_sm110": "is_sm110_supported",
    "is_sm100_or_sm110": "is_sm100_or_sm110_supported",
    "is_sm120": "is_sm120_supported",
    "is_blackwell": "is_blackwell_supported",
    "is_hopper_with_cuda_12_3": "is_hopper_with_cuda_12_3",
    "is_cuda": "is_cuda",
    "is_hip": "is_hip",
}
_PROBE_WORDS = ("is_sm", "is_blackwell", "is_hopper", "is_ampere", "get_device_capability", "get_platform")


@dataclass(frozen=True)
class Device:
    """What the probes read: the vendor and the compute capability's major number."""

    label: str
    vendor: str
    major: int
    minor: int


def device_raises(report: Report, gpu: str | None) -> LayerResult:
    """RS036 findings: the analysed release's checks that refuse a given flag on the GPU ``--gpu`` names,
    or (a release nothing names) the other releases whose checks do."""
    from argtrace.layers.start_raises import _given

    result = LayerResult()
    device = _device(gpu)
    framework = report.framework.name
    release = report.framework.release
    if device is None or framework != "sglang" or release is None:
        return result
    if (report.sections.get("resolution") or {}).get("status") not in (None, "skipped"):
        return result  # the resolver ran the release's code (on its fake device): RS001 says what it raised
    if (report.sections.get("parser") or {}).get("exit_status"):
        return result  # argparse exits first: no check runs
    values = _given(report)
    if not values:
        return result
    refused = refusals(framework, release, device, values)
    for site, read, assumed in refused.values():
        result.findings.append(_finding(report, release, device, site, read, assumed))
    if refused or report.framework.source not in (None, "none"):
        return result
    # a release nothing names: the newest bundled one accepts the flag on this GPU; name those that do not
    others: dict[str, list[str]] = {}
    sites: dict[str, tuple[Mapping[str, Any], tuple[str, ...]]] = {}
    for other in report.framework.accepted_by or ():
        if other == release:
            continue
        for message, (site, read, _assumed) in refusals(framework, other, device, values).items():
            others.setdefault(message, []).append(other)
            sites[message] = (site, read)  # the newest refusing release's site (accepted_by is ascending)
    for message, releases in others.items():
        site, read = sites[message]
        result.findings.append(_other_releases(report, release, device, site, read, releases))
    return result


def _device(gpu: str | None) -> Device | None:
    if not gpu:
        return None
    from argtrace.gpus import parse_gpu_spec

    try:
        profile = parse_gpu_spec(gpu).profile
    except ValueError:
        return None
    major, minor = profile.compute_capability
    return Device(profile.label, profile.vendor, major, minor)


def refusals(
    framework: str, release: str, device: Device, values: Mapping[str, Any]
) -> dict[str, tuple[Mapping[str, Any], tuple[str, ...], tuple[str, ...]]]:
    """The release's device-gated sites whose tests hold on ``values`` and ``device``: message -> (site, the
    settings read, the CUDA-runtime assumptions the probes' values rest on)."""
    import ast

    from argtrace.layers.start_raises import _options, refuses, site_tests

    groups = _options(framework, release)
    out: dict[str, tuple[Mapping[str, Any], tuple[str, ...], tuple[str, ...]]] = {}
    for site in _device_sites(framework, release):
        assumed: list[str] = []
        conditions = []
        probed = False
        try:
            for condition in site_tests(site):
                tree = ast.parse(str(condition), mode="eval")
                before = ast.dump(tree)
                swapped = _probes_class()(device, assumed).visit(tree)  # in place: compare the dumps
                probed = probed or ast.dump(swapped) != before
                conditions.append(ast.unparse(swapped))
        except (SyntaxError, ValueError, RecursionError):
            continue
        if not probed:
            continue
        holds = refuses({**site, "conditions": conditions, "resolved": None}, framework, values, groups)
        if holds is None or not holds[0]:
            continue
        message = str(site.get("message") or "")
        out.setdefault(message, (site, holds[1], tuple(dict.fromkeys(assumed))))
    return out


@functools.cache
def _probes_class() -> Callable[[Device, list[str]], ast.NodeTransformer]:
    """The transformer below, made at its first use: ``ast`` is imported only when a test is parsed."""
    import ast

    class _Probes(ast.NodeTransformer):
        """Replaces the device probes a test calls by their value on ``device``; leaves any other call alone
        (the evaluator then says unknown)."""

        def __init__(self, device: Device, assumed: list[str]) -> None:
            self.device = device
            self.assumed = assumed

        def visit_Call(self, node: ast.Call) -> ast.AST:
            name = _called(node.func)
            value = self._probe(name) if name and not node.args and not node.keywords else None
            return ast.Constant(value) if value is not None else self.generic_visit(node)

        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            # get_platform().is_sm100 (a property read through PlatformContext.__getattr__)
            if isinstance(node.value, ast.Call) and _called(node.value.func) == "get_platform":
                value = self._probe(_PLATFORM.get(node.attr, ""))
                if value is not None:
                    return ast.Constant(value)
            return self.generic_visit(node)

        def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
            # torch.cuda.get_device_capability()[0]: the major number
            if (
                isinstance(node.value, ast.Call)
                and _called(node.value.func) == "get_device_capability"
                and isinstance(node.slice, ast.Constant)
                and node.slice.value in (0, 1)
                and self.device.vendor == "nvidia"
            ):
                return ast.Constant(self.device.major if node.slice.value == 0 else self.device.minor)
            return self.generic_visit(node)

        def _probe(self, name: str) -> bool | None:
            if name == "is_cuda":
                if self.device.vendor == "nvidia":
                    self.assumed.append("a CUDA build of PyTorch")
                return self.device.vendor == "nvidia"
            if name == "is_hip":
                return self.device.vendor == "amd"
            probe = _MAJORS.get(name)
            if probe is None:
                return None
            majors, cuda = probe
            if self.device.vendor != "nvidia" or self.device.major not in majors:
                return False  # outside its majors (or not CUDA): False whatever the runtime
            self.assumed.append(f"a CUDA runtime {cuda}+")
            return True

    return _Probes


def _called(func: ast.AST) -> str | None:
    import ast

    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


@functools.lru_cache(maxsize=8)
def _device_sites(framework: str, release: str) -> tuple[Mapping[str, Any], ...]:
    """The release's sites whose tests call a device probe (found once per release, kept between runs)."""
    from argtrace.resolver.data_cache import cached
    from argtrace.resolver.raise_index import RAISE_DIR, load_index

    def build() -> list[Any]:
        index = load_index(framework, release) or {}
        return [
            site
            for site in index.get("sites") or ()
            if isinstance(site, Mapping)
            and any(
                word in str(c)
                for c in site.get("resolved") or site.get("conditions") or ()
                for word in _PROBE_WORDS
            )
        ]

    index_file = RAISE_DIR / f"{framework}-{release}.json"
    if not index_file.is_file():
        return ()
    shared = RAISE_DIR / f"{framework}-shared.json"
    sources = [Path(__file__), index_file, *([shared] if shared.is_file() else [])]
    return tuple(cached(f"device-sites-{framework}-{release}", sources, build))


def _words(report: Report, read: tuple[str, ...]) -> list[str]:
    words = []
    for name in read:
        setting = report.setting(name)
        flag = (setting.flag if setting is not None else None) or name
        value = setting.effective if setting is not None else None
        words.append(flag if value is True else f"{flag} {value}")
    return words


def _where(site: Mapping[str, Any]) -> str:
    return f"{site.get('function')}, {site.get('file')}:{site.get('line')}"


def _finding(
    report: Report,
    release: str,
    device: Device,
    site: Mapping[str, Any],
    read: tuple[str, ...],
    assumed: tuple[str, ...],
) -> Finding:
    from argtrace.layers.start_raises import when_text
    from argtrace.rules import start_values as rules

    setting = report.setting(read[0])
    at = setting.history[-1].at if setting is not None and setting.history else None
    exception = site.get("exception") or "an exception"
    rests = ["the GPU is the one --gpu names", "the check runs at every start", *assumed]
    text = (
        f"sglang {release} refuses {', '.join(_words(report, read))} on {device.label} (compute capability "
        f"{device.major}.{device.minor}) at start-up: {exception} {str(site.get('message') or '')!r} "
        f"({_where(site)}; assumed: {', '.join(rests)})"
    )
    flags = [((s.flag if s is not None else None) or n) for n, s in ((n, report.setting(n)) for n in read)]
    return rules.RS036.finding(
        text,
        at=at,
        setting=read[0],
        evidence=[Evidence("resolution", _where(site), when_text(site))],
        fix=f"change {' or '.join(dict.fromkeys(flags))} to a choice this GPU supports (the message says "
        "which GPUs the value needs), or run on such a GPU",
    )


def _other_releases(
    report: Report,
    release: str,
    device: Device,
    site: Mapping[str, Any],
    read: tuple[str, ...],
    releases: list[str],
) -> Finding:
    from argtrace.layers.start_raises import when_text
    from argtrace.resolver.message_store import sort_releases
    from argtrace.rules import start_values as rules

    ordered = sort_releases(releases)
    span = ordered[0] if len(ordered) == 1 else f"{ordered[0]}-{ordered[-1]}"
    setting = report.setting(read[0])
    at = setting.history[-1].at if setting is not None and setting.history else None
    text = (
        f"on {device.label} (compute capability {device.major}.{device.minor}), sglang {span} refuse "
        f"{', '.join(_words(report, read))} at start-up: {site.get('exception') or 'an exception'} "
        f"{str(site.get('message') or '')!r} ({_where(site)}); sglang {release}, analysed because nothing "
        "names the release, accepts it: which release runs decides"
    )
    return rules.RS036.finding(
        text,
        at=at,
        setting=read[0],
        severity="info",
        evidence=[Evidence("resolution", _where(site), when_text(site))],
        fix=f"pass --framework-version with the release that runs; with sglang {span}, choose another value "
        "this GPU supports",
    )
