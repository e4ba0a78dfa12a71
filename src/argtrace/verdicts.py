"""Honest verdicts: what each finding rests on, and no error that rests on an assumption.

A finding's basis is its layer's (``model.LAYER_BASIS``) or its rule's; this module marks the findings
whose chain used a default argtrace chose and caps their severity: such a finding is at most a warning
that says what was assumed and which option replaces the assumption with a fact, and a memory verdict on
an assumed GPU is information only. The assumptions of one run:

- the release, when nothing showed which one runs (``framework.source`` is ``none``): the framework's own
  code that ran (resolution, sizing) and every memory verdict (sized by one release's rules) rest on it
  (at most a warning), and a parser or process finding about
  an option that is not the same in every bundled release holds on some releases only (information, the
  releases named in PR011); a parser finding about an option registered the same way in every release
  holds whichever runs;
- the GPU, when no ``--gpu`` was given and resolution or memory sizing used a default profile;
- the script's arguments, when the script reads them (``$1``, ``"$@"``, directly or through variables)
  and argtrace was given none: a finding at a word or environment value made from them (``--port $2``,
  ``CUDA_VISIBLE_DEVICES=$GPU`` after ``GPU=$1``) is at most a warning, by the location the shell layer
  recorded (``ServerCommand.from_missing_arguments``); given some arguments, missing ones are the
  invocation's and stay errors;
- the caller's environment, for a variable the launch expands that is not set in the environment argtrace
  was given (``--env``): what the parser or the framework says of a word made in part from it
  (``--speculative-config "{\"num_speculative_tokens\":${SPEC_TOKENS}}"``, vllm#57713: the JSON is
  broken only if the caller leaves SPEC_TOKENS unset) is at most a warning, by the word's location
  (``ServerCommand.from_unset_variables``); the shell layer's own findings on such a word (SH007, SH026)
  already say it is assumed;
- an image's entrypoint, when the image table knows it for other builds of the image only (TP044): what the
  parser made of the words after the image rests on it (at most a warning); when the tag names a release
  no known build is recorded for and the known builds disagree on the entrypoint, which one that release
  has is not known, so such a finding holds on some builds only (information, like a release-dependent
  finding: ``vllm/vllm-openai:v0.6.6.post1 --model X`` is right for the builds whose entrypoint is
  ``python3 -m vllm.entrypoints.openai.api_server`` and wrong for ``vllm serve``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from argtrace.model import Assumption, Finding, FromUnset, Severity

RELEASE_OPTION = "--framework-version"
GPU_OPTION = "--gpu NAME[xCOUNT]"
ENTRYPOINT_OPTION = "--entrypoint, or command: in the launch file"
ARGUMENTS_OPTION = "its arguments after SCRIPT: argtrace check SCRIPT ARG1 ARG2 ..."
# A script that reads $1 checked with none: what its words and variables get from them is what
# `bash SCRIPT` with no arguments would do, which is rarely how it is launched.
# appended to a flag's location in ``settle``'s ``from_missing_arguments``: its value was made from them
VALUE_OF = "#value"
NO_ARGUMENTS = Assumption("script-arguments", "the script gets no arguments", ARGUMENTS_OPTION)

_CAP: dict[Severity, Severity] = {"error": "warning", "warning": "warning", "info": "info"}
# Resolution-layer findings that compare config.json with the flags (layers/model_rules.py) or evaluate the
# release's argument checks on them (layers/start_raises.py), or read two flags against the serving code
# (RS038), or read a flag against the release's registry (RS054) or a variable against the front end's
# fallback (RS065) or against what the release's engine does to it after parsing (RS059, RS060), or an
# explicit CUDA graph capture maximum against the release's grid (RS069) or a value against a configuration
# field's bound (RS070), or an NGRAM trie's capacity against its depth (RS066), or the parallel sizes
# against the nodes they are placed on (RS067, RS071), or an all-to-all backend against the parallel layout
# and the release's removed backends (RS068, RS072), or the serving dtype against the Mamba conv state's
# (RS073) or the Mamba state pool against the running requests (RS074), or a Mamba cache mode against prefix
# caching and the settings its checks need (RS075, RS076), or a parser name against the release's parser
# registries (RS079), or a Mamba strategy with a draft against the release's assertion (RS086), or an MTP
# draft against the checkpoint's tensor names (RS087), or an EAGLE draft's counts against the release's
# resolution and draft tree (RS085, RS088), and never read the GPU: an assumed GPU does not weaken them.
# MM013 compares the servers' fractions of one device, whatever the device (layers/memory/shared_gpu.py);
# MM014 the host memory a fixed --hicache-size pins per rank (layers/hicache_host.py).
GPU_FREE = frozenset(
    {
        "MM013",
        "MM014",
        "MM015",
        "RS024",
        "RS025",
        "RS032",
        "RS038",
        "RS047",
        "RS048",
        "RS049",
        "RS050",
        "RS054",
        "RS055",
        "RS059",
        "RS060",
        "RS061",
        "RS065",
        "RS066",
        "RS067",
        "RS068",
        "RS069",
        "RS070",
        "RS071",
        "RS072",
        "RS073",
        "RS074",
        "RS075",
        "RS076",
        "RS079",
        "RS085",
        "RS086",
        "RS087",
        "RS088",
    }
)


# Resolution findings that compare the memory layer's KV pool with a setting: the pool is sized for the GPU,
# so on an assumed one they are a note like the memory layer's own verdicts (RS021 on a correct 8x H800
# launch of Qwen3-VL-235B checked without --gpu, QwenLM/Qwen3-VL#1746).
POOL_ON_GPU = frozenset({"RS021"})


def environment_assumption(names: Sequence[str]) -> Assumption:
    """What a word made from variables that are not set here rests on: that the caller leaves them unset."""
    shown = ", ".join(names)
    verb = "is" if len(names) == 1 else "are"
    option = " ".join(f"--env {name}=VALUE" for name in names)
    return Assumption("environment", f"{shown} {verb} not set where the server starts", option)


def release_assumption(framework: str, analysed_with: str) -> Assumption:
    return Assumption("release", f"{framework} {analysed_with}", RELEASE_OPTION)


def gpu_assumption(spec: str) -> Assumption:
    return Assumption("gpu", spec, GPU_OPTION)


def entrypoint_assumption(image: str, entrypoint: str) -> Assumption:
    return Assumption("entrypoint", f"`{entrypoint}` for {image}", ENTRYPOINT_OPTION)


def settle(
    findings: Sequence[Finding],
    *,
    release: Assumption | None,
    gpu: Assumption | None,
    holds_on_every_release: Callable[[Finding], bool],
    entrypoints: Mapping[str, Assumption] | None = None,
    builds_differ: Collection[str] = (),
    known_nowhere: Callable[[Finding], bool] = lambda finding: False,
    substitute: bool = False,
    from_missing_arguments: Collection[str] = (),
    from_unset_variables: Sequence[FromUnset] = (),
) -> list[Finding]:
    """``findings`` with basis ``assumed`` (and a capped severity) where they rest on ``release``, ``gpu``
    or an assumed image entrypoint (``entrypoints``: by the location of the command the image runs; in
    ``builds_differ`` those of a release-named tag whose known builds disagree on it); the others
    unchanged. A parser finding about a word no bundled release accepts (``known_nowhere``) that does not
    hold on every release stays a warning: it fails on every release argtrace knows, only a newer one
    could take it. With ``substitute`` the release is known but not bundled and ``release`` is the schema
    standing in for it: what rests on it is a warning (it is that release's verdict, read from a neighbour),
    not the note a verdict on an unknown release is."""
    out = []
    for finding in findings:
        rests_on: list[Assumption] = []
        if finding.at is not None and (
            finding.at in from_missing_arguments
            or (_refuses_value(finding) and f"{finding.at}{VALUE_OF}" in from_missing_arguments)
        ):
            rests_on.append(NO_ARGUMENTS)
        unset = _unset_under(finding, from_unset_variables)
        if unset:
            rests_on.append(environment_assumption(unset))
        if entrypoints and finding.layer == "parser" and finding.at is not None and finding.at in entrypoints:
            rests_on.append(entrypoints[finding.at])
        if release is not None and _needs_release(finding) and not holds_on_every_release(finding):
            rests_on.append(release)
        if gpu is not None and finding.layer in ("resolution", "memory") and finding.code not in GPU_FREE:
            rests_on.append(gpu)
        if not rests_on or finding.rests_on == "observed":
            out.append(finding)
            continue
        severity = _CAP[finding.severity]
        if gpu in rests_on and (finding.layer == "memory" or finding.code in POOL_ON_GPU):
            severity = "info"
        if (
            release in rests_on
            and finding.layer in ("parser", "process")
            and not known_nowhere(finding)
            and not substitute
        ):
            severity = "info"  # holds on some releases only: which one runs is not known
        if finding.layer == "parser" and finding.at in builds_differ:
            severity = "info"  # holds on some builds of the tagged release only: which one is not known
        out.append(
            replace(
                finding, severity=severity, basis="assumed", assumptions=(*finding.assumptions, *rests_on)
            )
        )
    return out


def _refuses_value(finding: Finding) -> bool:
    """A parser finding that refuses a flag's value, said at the flag (argparse's `argument --x: invalid
    JSON`, `argument --x: invalid int value: ''`): what the value was made from decides it."""
    return finding.layer == "parser" and finding.message.startswith("argument ")


def _unset_under(finding: Finding, made: Sequence[FromUnset]) -> tuple[str, ...]:
    """The unset variables a finding's word was made from: a finding at the word itself, or the parser's
    at its flag quoting the value (``argument --speculative-config: Value {"num_speculative_tokens":}
    cannot be converted``). The shell layer's own findings already say what they assume."""
    if finding.at is None or finding.layer == "shell":
        return ()
    for word in made:
        if finding.at == word.at:
            return word.names
        quoted = word.value and (f"'{word.value}'" in finding.message or f" {word.value} " in finding.message)
        if finding.at == word.flag_at and finding.layer == "parser" and quoted:
            return word.names
    return ()


def _needs_release(finding: Finding) -> bool:
    # The memory layer sizes a launch by one release's rules (its profile run, KV pages, defaults): whatever
    # its basis, a verdict on an unknown release rests on the one it followed (vllm#13061: "vLLM 0.33.0: out
    # of memory" for a launch nothing dated).
    if finding.layer == "memory":
        return True
    return finding.rests_on in ("schema", "framework-code") and finding.layer in (
        "process",
        "parser",
        "resolution",
    )


def describe_assumptions(assumptions: Sequence[Assumption]) -> str:
    """``assumed sglang 0.5.19 (pass --framework-version), GPU h100 (pass --gpu NAME[xCOUNT])``."""
    parts = []
    for a in assumptions:
        what = {
            "gpu": "GPU ",
            "model-config": "model config ",
            "entrypoint": "entrypoint ",
        }.get(a.what, "")
        parts.append(f"{what}{a.value} (pass {a.option})")
    return "assumed " + ", ".join(parts)
