"""``why`` on a text no framework site explains: the log signatures it matches, the commands that tell more.

When the pasted text is another program's (torch's CUDA out-of-memory, NCCL, argparse's "unrecognized
arguments") the error-signature catalog (``data/error_signatures.json``, the one ``argtrace log`` reads)
says what it means and how to fix it: ``matched_signatures`` picks the entries the text matches (a step-bound
variant by the step the pasted frames show), ``flags_known_in`` says which bundled releases take a refused
flag, ``more_commands`` names the ``argtrace mem``/``argtrace log`` commands with what was given filled in.
It is a unit because it reads only the catalog, the release index and the text, never the message indexes
``why.py`` ranks sites from.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def text_stage(text: str) -> str | None:
    """The start-up step the pasted traceback's frames were in (``frames_stage``, as ``argtrace log`` reads
    them), else the step vLLM's worker wrapper lines name (``worker_method_stage``: "... while processing
    method load_model."); None when neither says."""
    from argtrace.layers.log.stages import frames_stage, worker_method_stage

    lines = text.splitlines()
    frames = [line for line in lines if re.search(r'\bFile "[^"]+", line \d+', line)]
    stage = frames_stage(frames, lines[-1] if lines else "") if frames else None
    return stage or worker_method_stage(text)


def matched_signatures(texts: list[str], framework: str | None, text: str = "") -> list[dict[str, Any]]:
    """The log signatures the text matches. A signature with variants bound to a start-up step (torch's
    "CUDA out of memory": loading the weights, the KV cache, CUDA graph capture, ...) takes the variant of
    the step the pasted frames show; without frames that say it, the step is unknown and so is the fix:
    the entry says so (``step``: ``unknown``), lists each step's fix (``by_step``) and asks for the log."""
    from argtrace.layers.log.signatures import load_catalog

    catalog = load_catalog().signatures
    stage = text_stage(text) if text else None
    out: list[dict[str, Any]] = []
    for sig in catalog:
        if framework and sig.framework not in ("any", framework):
            continue
        if sig.when_stage is not None:
            continue  # a step-bound variant: chosen below, through the step-free entry of the same words
        for candidate in texts:
            m = sig.pattern.search(candidate)
            if not m:
                continue
            variants = [
                v
                for v in catalog
                if v.when_stage is not None
                and v.pattern.pattern == sig.pattern.pattern
                and (not framework or v.framework in ("any", framework))
            ]
            chosen = next((v for v in variants if v.when_stage == stage), None) if stage else None
            used = chosen or sig
            entry: dict[str, Any] = {
                "id": used.id,
                "code": used.code,
                "framework": used.framework,
                "meaning": used.meaning,
                "settings": list(used.settings),
                "fix": used.fix,
                "source": used.source,
                "groups": {k: v for k, v in m.groupdict().items() if v is not None},
                **({"wrapper": True} if used.wrapper else {}),
            }
            if chosen is not None:
                entry["step"] = stage
            elif variants:
                entry["step"] = "unknown"
                entry["by_step"] = [{"step": v.when_stage, "fix": v.fix} for v in variants]
                entry["by_step"].append({"step": "serving (or any other)", "fix": sig.fix})
                entry["fix"] = (
                    "this text does not say at which step the process was (loading the weights, allocating "
                    "the KV cache, capturing CUDA graphs, serving ...), and each step has another fix: run "
                    "`argtrace log` on the server log, which finds the step"
                )
            if used.id.startswith("cuda-oom"):
                from argtrace.commands.why_oom import beyond_fix, holders, others_fix

                found = holders(text or candidate)
                if found is not None:
                    entry["holders"] = found.as_json()  # torch's own accounting of the device
                    # whatever the step: the server's settings are not it
                    if found.beyond_device() or found.others_hold_it():
                        entry["fix"] = beyond_fix(found) if found.beyond_device() else others_fix(found)
                        entry.pop("step", None)
                        entry.pop("by_step", None)
            out.append(entry)
            break
    return out


def flags_known_in(sig: Mapping[str, Any], framework: str | None) -> list[dict[str, Any]]:
    """For "unrecognized arguments: --x ...": the bundled releases whose parser takes each flag (the
    release index), so a flag the running release is too old or too new for says which releases have it;
    a flag no release of either framework knows is a misspelling or another tool's."""
    if sig["id"] != "argparse-unrecognized":
        return []
    from argtrace.frameworks.release_index import release_index

    out: list[dict[str, Any]] = []
    for word in re.findall(r"(?<!\S)--?[A-Za-z][\w.-]*(?:=\S*)?", str(sig["groups"].get("args", ""))):
        for name in (framework,) if framework in ("sglang", "vllm") else ("sglang", "vllm"):
            index = release_index(name)
            releases = index.releases_knowing_flag(word)
            if releases:
                out.append(
                    {
                        "flag": word.split("=", 1)[0],
                        "framework": name,
                        "releases": list(releases),
                        "of": len(index.releases),
                    }
                )
    return out


_MEMORY = (
    r"(?i)out of memory|OutOfMemoryError|Not enough memory|mem[-_]fraction[-_]static|"
    r"gpu[-_]memory[-_]utilization|KV cache|cache blocks|max_total_num_tokens|Not enough space|"
    r"CUBLAS_STATUS_ALLOC_FAILED"
)


_CAPACITY = r"total capacity of (?P<gib>[\d.]+) GiB"


_ASSIGNED = r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*=\s*([\w.\-/]+)"


def gpu_from_text(text: str) -> str | None:
    """The GPU profile whose capacity torch's OOM message states (``total capacity of 79.19 GiB``)."""
    from argtrace.gpus import GPUS

    m = re.search(_CAPACITY, text)
    if not m:
        return None
    gib = float(m.group("gib"))
    near = [p.name for p in GPUS.values() if abs(p.total_gib - gib) < 0.05]
    return near[0] if len(near) == 1 else None


def more_commands(
    text: str, framework: str | None, version: str | None, args: argparse.Namespace | None, runtime: bool
) -> list[dict[str, str]]:
    """The commands that tell more about a memory or runtime message, with what was given filled in."""
    import shlex

    from argtrace.layers.log.sites import _flag

    out: list[dict[str, str]] = []
    log = getattr(args, "log", None)
    fw = framework or "sglang"  # mem's own default; said below when it is a guess
    if re.search(_MEMORY, text):
        flags: list[str] = []
        for name, value in re.findall(_ASSIGNED, text):
            flag = _flag(fw, version, name)
            if flag and flag not in flags:
                flags += [flag, value]
        gpu = getattr(args, "gpu", None) or gpu_from_text(text)
        words = ["argtrace", "mem", "--model-config", getattr(args, "model_config", None) or "MODEL_DIR"]
        words += ["--gpu", gpu or "GPU"]
        words += ["--framework", fw] if framework else []
        if version:
            words += ["--framework-version", version]
        if log:
            words += ["--from-log", log]
        cmd = shlex.join(words) + " -- " + (shlex.join(flags) if flags else "SERVER_FLAGS...")
        out.append(
            {
                "command": cmd,
                "why": "sizes weights, KV cache and activations for this model and GPU and says which "
                "settings make it fit (fill in MODEL_DIR, GPU and the server's flags where shown"
                + ("" if framework else "; add --framework vllm for a vLLM server")
                + ")",
            }
        )
    if runtime or out:
        out.append(
            {
                "command": shlex.join(["argtrace", "log", log or "LOG"]),
                "why": "reads the whole server log: the configuration it logged, where start-up stopped, "
                "the first error and what caused it",
            }
        )
    return out
