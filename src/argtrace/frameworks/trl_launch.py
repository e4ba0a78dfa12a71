"""``trl vllm-serve`` in front of vLLM's parser: TRL's words read (``trl_vllm_serve.py``), then the argv
vLLM gets, with TRL's part said as notes and findings (PA063 refusals, PA064 words older releases refuse)."""

from __future__ import annotations

from argtrace.frameworks.argv import ArgToken, PreparedArgv, read_config_file
from argtrace.frameworks.trl_vllm_serve import (
    MODULE,
    TrlRead,
    engine_tokens,
    first_forwarding,
    read_trl,
    record,
    releases,
    trl_env,
    vllm_tokens,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.frameworks.schema import Schema
    from argtrace.model import ServerCommand


def trl_prepared(
    tokens: list[ArgToken], out: PreparedArgv, server: ServerCommand, schema: Schema
) -> tuple[list[ArgToken], bool]:
    """The tokens vLLM's parser gets from ``trl vllm-serve``'s words, and whether they are a ``vllm serve``
    argv (TRL 1.11.0 and later) rather than the engine's flags of ``LLM(...)``. Sets ``out.fatal`` when
    TRL's own parser stops the start."""
    from argtrace.rules import parser as rules

    words = [t.text for t in tokens]
    src = [t.src for t in tokens]
    before = [w.text for w in server.argv[: server.server_args_start]]
    module = next((m for m in ("trl.cli.main", "trl.cli") if m in before), None)
    read = read_trl(words, vllm_release=schema.version, module=module)
    if read.config is not None and read.config + 1 < len(words) and words[read.config + 1] is not None:
        path = str(words[read.config + 1])
        status, data = read_config_file(
            path,
            server,
            out,
            server.at,
            # TrlParser opens it with open(): Python's own error when it is missing
            not_found=f"FileNotFoundError: [Errno 2] No such file or directory: '{path}'",
            stops="trl vllm-serve stops with FileNotFoundError",
        )
        if status == "fatal":
            return [], False
        if status == "read":
            read = read_trl(words, vllm_release=schema.version, module=module, config=data, config_path=path)
            read.config_at = path
    assumed = f" (assumed: {read.why}; the launch does not say which TRL runs)" if read.assumed else ""
    if read.error:
        out.findings.append(
            rules.PA_TRL_REFUSED.finding(
                f"`trl vllm-serve` stops in TRL's parser (TrlParser over ScriptArguments, trl "
                f"{read.release}{assumed}): trl vllm-serve: error: {read.error}",
                at=server.at,
            )
        )
        out.fatal = (2, f"trl vllm-serve: error: {read.error}")
        return [], False
    if read.config_env:
        out.notes.append(
            f"`--config {read.config_at}`: TrlParser sets its `env:` mapping in its own environment, which "
            f"the server inherits: {', '.join(f'{k}={v}' for k, v in read.config_env.items())}"
        )
    older = [r for r in releases() if record(r)["remaining"] == "refused"]
    if read.unused:
        # the release that refuses them is assumed: later ones forward the words (PA064 as a warning)
        shown = [words[k] for k in read.remaining] if "HfArgumentParser" in read.unused else "the YAML's keys"
        message = (
            f"trl {read.release}{assumed} stops at {shown}: {read.unused}; TRL {first_forwarding()} and "
            "later forward them to `vllm serve`"
        )
        fix = f"run TRL {first_forwarding()} or later (with a vLLM its vllm extra admits), or remove {shown}"
        if read.assumed:
            out.findings.append(
                rules.PA_TRL_FORWARDED.finding(message, at=server.at, fix=fix, severity="warning")
            )
        else:
            out.findings.append(rules.PA_TRL_REFUSED.finding(message, at=server.at, fix=fix))
            out.fatal = (1, read.unused)
            return [], False
    elif read.remaining and read.mode == "command" and older:
        shown = [words[k] for k in read.remaining]
        out.findings.append(
            rules.PA_TRL_FORWARDED.finding(
                f"trl {read.release}{assumed} forwards {shown} to `vllm serve`; TRL {older[0]}-{older[-1]} "
                f"refuse them: ValueError: Some specified arguments are not used by the HfArgumentParser: "
                f"{shown}",
                at=server.at,
                fix=f"run TRL {first_forwarding()} or later (as assumed here)",
            )
        )
    _cli_warning(read, server, out)
    env = trl_env(read)
    if read.mode == "command":
        built = vllm_tokens(read, words, src, schema.version)
        defaults, imposed = [], []
        for k, t in enumerate(built[: len(built) - len(read.remaining)]):
            nxt = built[k + 1] if k + 1 < len(built) else None
            if t.via != "trl" or t.src:
                continue  # a value, the user's word, or the YAML's
            if nxt is not None and nxt.via == "trl-default":
                defaults.append(f"{t.text} {nxt.text}")
            elif nxt is not None and (nxt.src or nxt.via == "config") and t.text and t.text.startswith("--"):
                continue  # the flag TRL writes for the user's (or the YAML's) value
            elif not (k and (built[k - 1].src or built[k - 1].via == "config")):
                imposed.append(t.text or "")
        out.notes.append(
            f"trl vllm-serve (trl {read.release}{assumed}) runs `vllm serve` with "
            + ", ".join(f"{k}={v}" for k, v in env.items())
            + f" and writes {len(built) - len(read.remaining)} words before the ones it does not know: "
            f"TRL's defaults {', '.join(defaults)}; TRL's own {' '.join(imposed)}"
        )
        return built, True
    options = {o for spec in schema.options for o in spec.option_strings}
    built = engine_tokens(read, words, src, lambda flag: flag in options)
    out.notes.append(
        f"trl vllm-serve (trl {read.release}{assumed}) runs its own server (uvicorn "
        + ", ".join(f"{k}={v}" for k, v in read.own.items())
        + ") and builds vLLM's LLM(...) in each data-parallel worker with "
        + ", ".join(f"{k}={v}" for k, v in env.items())
    )
    return built, False


_OPS = {
    "Eq": lambda a, b: a == b,
    "Gt": lambda a, b: a > b,
    "Lt": lambda a, b: a < b,
    "NotEq": lambda a, b: a != b,
}


def _cli_warning(read: TrlRead, server: ServerCommand, out: PreparedArgv) -> None:
    """PA065: the CLI entry point (not ``python -m trl.scripts.vllm_serve``) with values some release's
    CLI warns about (``cli_warning`` of the table)."""
    from argtrace.rules import parser as rules

    if any(w.text == MODULE for w in server.argv[: server.server_args_start]):
        return
    hits = []
    for rel in releases():
        warn = record(rel).get("cli_warning")
        if warn is None:
            continue
        vals = {f["name"]: f.get("default") for f in record(rel)["fields"]}
        vals.update({k: v for k, (v, _i) in read.given.items()})
        if all(_OPS[op](vals.get(name), lit) for name, op, lit in warn["when"]):
            hits.append((rel, warn["message"]))
    if hits:
        span = f"{hits[0][0]}-{hits[-1][0]}" if len(hits) > 1 else hits[0][0]
        out.findings.append(
            rules.PA_TRL_CLI_DP.finding(
                f"TRL {span}'s CLI warns about this launch: {hits[-1][1]}",
                at=server.at,
            )
        )
