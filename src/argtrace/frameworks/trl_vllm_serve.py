"""TRL's ``trl vllm-serve`` (GRPO/online RL's generation server): TRL's own options, and what vLLM gets.

``trl vllm-serve ARGS``, ``python -m trl.cli[.main] vllm-serve ARGS`` and ``python -m
trl.scripts.vllm_serve ARGS`` parse ARGS with ``TrlParser`` (transformers' ``HfArgumentParser``) over the
``ScriptArguments`` dataclass of ``trl/scripts/vllm_serve.py``. The table ``data/trl_vllm_serve.json`` is
generated from the TRL wheels (``scripts/gen_trl_vllm_serve.py``, 38 releases 0.17.0-1.16.0). The
parser's rules are transformers' ``HfArgumentParser._parse_dataclass_field``: each field is ``--name``
and, when it has an underscore, ``--name-with-dashes``; a ``bool`` field (or ``Optional[bool]`` with a
default that is not ``None``) takes an optional value (``nargs="?"``, ``const=True``) read by
``string_to_bool``, an ``Optional[bool]`` defaulting to ``None`` needs one, a field defaulting to
``True`` gets a ``--no_name`` complement; a field without a default is required. ``parse_known_args``
keeps argparse's ``allow_abbrev=True``: an unambiguous prefix of an option is that option.

What happens next depends on the release:

- 1.11.0 and later (``build_command``): the words TRL does not know are kept (``return_remaining_strings``)
  and ``main`` execs ``python -m vllm.entrypoints.cli.main serve MODEL --host .. --port ..`` built from the
  fields (TRL's defaults written out as flags), the flags TRL imposes, then those words, with
  ``VLLM_SERVER_DEV_MODE=1`` in the environment: the server is vLLM's own ``vllm serve``.
- before 1.11.0: a word TRL does not know stops the start (``ValueError: Some specified arguments are not
  used by the HfArgumentParser: [...]``); TRL runs its own FastAPI server (``host``, ``port``,
  ``log_level`` are uvicorn's) and each data-parallel worker builds ``LLM(...)`` with the keywords the
  table records, which are ``EngineArgs`` fields: they are written as the engine's flags.

The TRL release that runs is not seen in a launch: the newest read release is assumed (said in a note),
and what only older releases do is said as an assumption.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from argtrace.frameworks.argv import ArgToken
from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ENTRYPOINT = "trl vllm-serve"
MODULE = "trl.scripts.vllm_serve"
# string_to_bool (transformers/hf_argparser.py)
_TRUE = {"yes", "true", "t", "y", "1"}
_FALSE = {"no", "false", "f", "n", "0"}


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version))


@lru_cache(maxsize=1)
def _raw() -> dict[str, Any]:
    data: dict[str, Any] = bundled_json("frameworks/data/trl_vllm_serve.json")
    return data


def releases() -> list[str]:
    """The TRL releases read, oldest first."""
    return sorted(_raw()["releases"], key=_key)


def record(release: str) -> dict[str, Any]:
    """The table's record of a TRL release read."""
    raw = _raw()
    return dict(raw["records"][raw["releases"][release]])


def _admits(spec: str | None, version: str, *, upper: bool = True) -> bool:
    """``version`` meets a requirement like ``<=0.31.0,>=0.22.0`` (``upper``: its upper bounds too)."""
    ops = {
        ">=": lambda a, b: a >= b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        "<": lambda a, b: a < b,
        "==": lambda a, b: a == b,
    }
    for part in (spec or "").split(","):
        m = re.match(r"\s*(>=|<=|==|>|<)\s*([\w.]+)", part)
        if not m or (not upper and m.group(1) in ("<", "<=")):
            continue
        if not ops[m.group(1)](_key(version)[:3], _key(m.group(2))[:3]):
            return False
    return True


def release_for_vllm(vllm_release: str | None, module: str | None = None) -> tuple[str, str]:
    """The TRL release assumed for a launch, and why: the newest read whose ``vllm`` extra (its METADATA's
    ``Requires-Dist: vllm...; extra == "vllm"``) admits the vLLM release analysed; when none does, the
    newest whose lower bound it meets (a vLLM newer than TRL has tested); else the newest read."""
    extras: dict[str, str | None] = _raw().get("vllm_extra") or {}
    newest_first = releases()[::-1]
    form = ""
    if module is not None:
        # `python -m trl.cli vllm-serve` runs only where trl.cli has a __main__ guard (0.17-0.28)
        running = [r for r in newest_first if module in record(r)["modules"]]
        if running:
            newest_first = running
            form = f"`python -m {module}` runs in TRL {running[-1]}-{running[0]}; of those, "
    bounded = [r for r in newest_first if re.search(r"<|==", extras.get(r) or "")]
    if vllm_release:
        # a requirement with an upper bound says which vLLM releases TRL was made for; a lower bound alone
        # (0.17-0.23) only says which it needs
        for upper, among in ((True, bounded), (False, newest_first)):
            hit = next((r for r in among if _admits(extras.get(r), vllm_release, upper=upper)), None)
            if hit is not None:
                spec = extras.get(hit) or "any"
                return hit, form + f"the newest TRL release read whose vllm extra ({spec}) " + (
                    f"admits vllm {vllm_release}"
                    if upper
                    else f"vllm {vllm_release} meets at its lower bound"
                )
    if vllm_release:
        # older than every release's lower bound: the oldest read is the nearest to it
        return newest_first[
            -1
        ], form + f"no TRL release read names vllm {vllm_release} in its vllm extra; the oldest"
    return newest_first[0], form + "the newest TRL release read"


def first_forwarding() -> str:
    """The first release read that forwards unknown words to ``vllm serve``."""
    return next(r for r in releases() if record(r)["remaining"] == "forwarded")


def runs_module(module: str, release: str | None = None) -> bool:
    """``python -m MODULE vllm-serve`` runs TRL's CLI in ``release`` (the newest read when None)."""
    return module in record(release or releases()[-1])["modules"]


@dataclass(frozen=True)
class TrlOption:
    """One option ``HfArgumentParser`` builds for a ``ScriptArguments`` field."""

    dest: str
    kind: str  # "switch" (nargs ?, const True), "bool" (a value read by string_to_bool), "value"
    type: str  # "int", "float", "str", "bool"
    default: Any
    required: bool
    negative: bool = False  # the --no_NAME complement (store_false)


def _options(rec: dict[str, Any]) -> dict[str, TrlOption]:
    out: dict[str, TrlOption] = {}
    for f in rec["fields"]:
        name, ann = f["name"], f["type"].replace(" ", "")
        base = next((t for t in ("bool", "int", "float") if re.search(rf"\b{t}\b", ann)), "str")
        has_default = "default" in f
        default = f.get("default")
        optional = "None" in ann or "Optional" in ann
        if base == "bool":
            kind = "switch" if (not optional or (has_default and default is not None)) else "bool"
        else:
            kind = "value"
        opt = TrlOption(name, kind, base, default, not has_default)
        flags = [f"--{name}"] + ([f"--{name.replace('_', '-')}"] if "_" in name else [])
        for flag in flags:
            out[flag] = opt
        if base == "bool" and default is True:
            neg = TrlOption(name, "negative", base, default, False, True)
            out[f"--no_{name}"] = neg
            if "_" in name:
                out[f"--no-{name.replace('_', '-')}"] = neg
    return out


@dataclass
class TrlRead:
    """``trl vllm-serve``'s words read as the release does: what vLLM gets, and what TRL did on the way."""

    release: str
    assumed: bool  # the release was not named: one is assumed (release_for_vllm)
    mode: str  # "command" (vllm serve is exec'd) or "llm" (TRL's server with LLM(...))
    tokens: list[ArgToken] = field(default_factory=list)  # what vLLM's parser gets
    given: dict[str, tuple[Any, tuple[int, ...]]] = field(default_factory=dict)  # dest -> (value, word idx)
    remaining: list[int] = field(default_factory=list)  # indices (in the words) TRL does not know
    env: dict[str, str] = field(default_factory=dict)  # what TRL sets in the server's environment
    own: dict[str, Any] = field(default_factory=dict)  # TRL's own server settings (before 1.11: uvicorn)
    error: str | None = None  # the start stops in TRL's parser: TRL's message
    config: int | None = None  # index of a `--config FILE` word (TrlParser reads the YAML)
    config_at: str | None = None  # that file, as the report names it
    why: str = ""  # why this release was assumed
    unused: str | None = None  # before 1.11.0: the words TRL does not know stop the start (TRL's message)
    from_config: dict[str, Any] = field(default_factory=dict)  # dest -> value, the YAML's defaults
    config_words: list[str] = field(default_factory=list)  # the YAML's other keys, as --KEY str(value)
    config_env: dict[str, str] = field(default_factory=dict)  # its `env:` mapping (TRL's os.environ)


def _convert(opt: TrlOption, text: str, flag: str) -> tuple[Any, str | None]:
    if opt.type == "bool":
        low = text.lower()
        if low in _TRUE:
            return True, None
        if low in _FALSE:
            return False, None
        return None, (
            f"argument {flag}: Truthy value expected: got {text} but expected one of yes/no, true/false, "
            "t/f, y/n, 1/0 (case insensitive)."
        )
    try:
        return (int(text) if opt.type == "int" else float(text) if opt.type == "float" else text), None
    except ValueError:
        return None, f"argument {flag}: invalid {opt.type} value: '{text}'"


def _match(word: str, options: dict[str, TrlOption]) -> str | None:
    """The option a ``--word`` is for TRL's parser (exact, else an unambiguous prefix: allow_abbrev)."""
    if word in options:
        return word
    hits = {f for f in options if f.startswith(word)}
    dests = {options[f].dest for f in hits}
    return sorted(hits)[0] if len(dests) == 1 and hits else None


def read_trl(
    words: Sequence[str | None],
    release: str | None = None,
    vllm_release: str | None = None,
    module: str | None = None,
    config: Any = None,
    config_path: str = "CONFIG",
) -> TrlRead:
    """Read ``trl vllm-serve``'s words (those after ``vllm-serve``) as ``release`` does; with no release
    (a launch never names it), as the one :func:`release_for_vllm` assumes for ``vllm_release``.
    ``config``: the ``--config`` YAML as loaded (``None`` when not read)."""
    named = release if release in _raw()["releases"] else None
    rel, why = (named, "named") if named else release_for_vllm(vllm_release, module)
    rec = record(rel)
    options = _options(rec)
    out = TrlRead(rel, named is None, "command" if "command" in rec else "llm", why=why)
    if config is not None and not _apply_config(config, rec, options, out, config_path):
        return out
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--config" and i + 1 < len(words):
            out.config = i
            i += 2
            continue
        if w is None or not w.startswith("-") or w in ("-", "--"):
            out.remaining.append(i)
            i += 1
            continue
        name, eq, attached = w.partition("=")
        flag = _match(name, options) if name.startswith("--") else None
        if flag is None:
            out.remaining.append(i)
            i += 1
            continue
        opt = options[flag]
        if opt.kind == "negative":
            out.given[opt.dest] = (False, (i,))
            i += 1
            continue
        nxt = words[i + 1] if i + 1 < len(words) else None
        takes_next = not eq and nxt is not None and not (nxt.startswith("-") and not _number(nxt))
        idx: tuple[int, ...]
        if eq:
            text, idx = attached, (i,)
        elif takes_next:
            text, idx = str(nxt), (i, i + 1)
        elif opt.kind == "switch":
            out.given[opt.dest] = (True, (i,))
            i += 1
            continue
        else:
            out.error = f"argument {flag}: expected one argument"
            return out
        value, err = _convert(opt, text, flag)
        if err:
            out.error = err
            return out
        out.given[opt.dest] = (value, idx)
        i += len(idx)
    missing = [
        o
        for f, o in options.items()
        if o.required and o.dest not in out.given and o.dest not in out.from_config and f == f"--{o.dest}"
    ]
    if missing:
        flags = ", ".join(f"--{o.dest}" for o in missing)
        out.error = f"the following arguments are required: {flags}"
        return out
    if out.remaining and rec["remaining"] == "refused" and out.unused is None:
        texts = [words[k] for k in out.remaining]
        out.unused = f"ValueError: Some specified arguments are not used by the HfArgumentParser: {texts}"
    return out


def _apply_config(
    config: Any, rec: dict[str, Any], options: dict[str, TrlOption], out: TrlRead, path: str
) -> bool:
    """TrlParser.parse_args_and_config's ``--config``: ``env:`` into the environment, a field's key as its
    default (argparse converts a string default with the option's type), any other key as ``--KEY
    str(value)`` words, forwarded (1.11.0+), refused (0.20.0-1.10.0) or dropped (0.16-0.19). ``False``
    when the start stops there (``out.error``)."""
    handling = rec.get("config") or {}
    if not isinstance(config, dict):
        message = handling.get("not_mapping") or "the YAML is no mapping: `config.pop` fails"
        out.error = message.replace("{config_path}", path)
        return False
    env = config.get("env")
    if isinstance(env, dict):
        out.config_env = {str(k): str(v) for k, v in env.items()}
    dests = {o.dest: o for o in options.values() if o.kind != "negative"}
    for key, value in config.items():
        if key == "env":
            continue
        opt = dests.get(key)
        if opt is None:
            out.config_words += [f"--{key}", str(value)]
            continue
        if isinstance(value, str) and opt.type != "str":
            value, err = _convert(opt, value, f"--{key}")
            if err:
                out.error = err
                return False
        out.from_config[key] = value
    if out.config_words and rec["remaining"] == "refused":
        message = handling.get("unknown_keys")
        if message:  # the start stops there (said as read_trl's unused words are)
            out.unused = message.replace("{config_remaining_strings}", str(out.config_words))
        out.config_words = []  # 0.16-0.19 drop them (parse_args_and_config returns without them)
    return True


def _number(text: str) -> bool:
    """argparse reads a negative number as a value when the parser has no option like it."""
    return re.fullmatch(r"-\d+(\.\d*)?|-\.\d+", text) is not None


def _values(rec: dict[str, Any], read: TrlRead) -> dict[str, Any]:
    vals = {f["name"]: f.get("default") for f in rec["fields"]}
    vals.update(read.from_config)
    vals.update({k: v for k, (v, _i) in read.given.items()})
    return vals


def _text(value: Any) -> str:
    return str(value)


def vllm_tokens(
    read: TrlRead, words: Sequence[str | None], src: Sequence[tuple[int, ...]], vllm_release: str | None
) -> list[ArgToken]:
    """The ``vllm serve`` argv (after ``serve``) TRL's ``build_command`` writes, each word tied to the TRL
    word it came from (``src``: the script indices of each word); TRL's own words carry ``via="trl"``."""
    rec = record(read.release)
    vals = _values(rec, read)
    where = f"trl {read.release} build_command"
    out: list[ArgToken] = []
    items = rec["command"]["items"]
    start = next(k for k, it in enumerate(items) if it.get("lit") == "serve") + 1
    for it in items[start:]:
        cond = it.get("when") or {}
        if "not_none" in cond and vals.get(cond["not_none"]) is None:
            continue
        if "truthy" in cond and not vals.get(cond["truthy"]):
            continue
        if "vllm_min" in cond and (vllm_release is None or _key(vllm_release) < _key(cond["vllm_min"])):
            continue
        if "lit" in it:
            out.append(ArgToken(str(it["lit"]), (), "trl", where))
            continue
        dest = it["field"]
        value = vals.get(dest)
        if "if_true" in it:
            value = it["if_true"] if value else it["if_false"]
        text = _text(value)
        if dest in read.given:
            idx = read.given[dest][1]
            if out and out[-1].via == "trl" and out[-1].text and out[-1].text.startswith("--"):
                # the flag TRL writes for the user's option points at the user's option word
                flag = out[-1]
                out[-1] = ArgToken(flag.text, tuple(src[idx[0]]), "trl", where, words[idx[0]])
            value_src = tuple(src[idx[-1]])  # `--port=8880`: the option word itself
            out.append(ArgToken(text, value_src, "trl", where, words[idx[-1]]))
        elif dest in read.from_config:
            out.append(ArgToken(text, (), "config", read.config_at))
        else:
            out.append(ArgToken(text, (), "trl-default", where))
    out += [ArgToken(w, (), "config", read.config_at) for w in read.config_words]  # before the command line's
    for k in read.remaining:
        out.append(ArgToken(words[k], tuple(src[k])))
    return out


def trl_env(read: TrlRead) -> dict[str, str]:
    """What TRL writes into the server's environment (``env[...] = ...`` in ``main``; before 1.11.0 the
    ``os.environ[...]`` writes of the script, whose values per worker are computed)."""
    rec = record(read.release)
    writes = rec["command"]["env"] if "command" in rec else rec["llm"]["env"]
    # a literal as its value; a computed one (the worker's rank, its port) as the expression, said so
    return {k: v.strip("'\"") if v[:1] in "'\"" else f"<per worker: {v}>" for k, v in writes.items()}


def engine_tokens(
    read: TrlRead,
    words: Sequence[str | None],
    src: Sequence[tuple[int, ...]],
    has_option: Any,
) -> list[ArgToken]:
    """Before 1.11.0: the ``LLM(...)`` keywords of ``llm_worker`` written as the engine's flags (a keyword
    is an ``EngineArgs`` field, whose flag is ``--field-name``); ``None`` keeps the engine's default, a
    ``bool`` is the switch or its ``--no-`` form. TRL's uvicorn settings go to ``read.own``."""
    rec = record(read.release)
    vals = _values(rec, read)
    where = f"trl {read.release} llm_worker LLM(...)"
    read.own = {k: vals.get(f) for k, f in rec["llm"]["uvicorn"].items()}
    out: list[ArgToken] = []
    for kw, spec in sorted(rec["llm"]["keywords"].items()):
        dest = spec.get("field") or next(iter(re.findall(r"script_args\.(\w+)", spec.get("expr", ""))), None)
        value = spec["lit"] if "lit" in spec else vals.get(dest) if dest else None
        if value is None or value == "":
            continue
        flag = "--" + kw.replace("_", "-")
        given = dest in read.given if dest else False
        at = tuple(s for k in read.given[dest][1] for s in src[k]) if given and dest else ()
        via = "trl" if given or "lit" in spec else "trl-default"
        if not given and dest in read.from_config:
            via, where_kw = "config", read.config_at
        else:
            where_kw = where
        if isinstance(value, bool):
            word = flag if value else ("--no-" + flag[2:])
            if not value and not has_option(word):
                continue
            out.append(
                ArgToken(word, at, via, where_kw, words[read.given[dest][1][0]] if given and dest else None)
            )
            continue
        out.append(ArgToken(flag, at[:1], via, where_kw))
        out.append(ArgToken(_text(value), at[-1:], via, where_kw))
    # each worker's environment: VLLM_DP_SIZE=str(script_args.data_parallel_size), which vLLM's
    # ParallelConfig reads as the data-parallel size (TRL starts one LLM per rank, VLLM_DP_RANK)
    dp = rec["llm"]["env"].get("VLLM_DP_SIZE", "")
    if "data_parallel_size" in read.given and "script_args.data_parallel_size" in dp:
        idx = read.given["data_parallel_size"][1]  # (from a --config YAML: said by its own setting)
        where_env = f"trl {read.release} llm_worker VLLM_DP_SIZE"
        out.append(ArgToken("--data-parallel-size", tuple(src[idx[0]]), "trl", where_env, words[idx[0]]))
        out.append(ArgToken(_text(vals["data_parallel_size"]), tuple(src[idx[-1]]), "trl", where_env))
    return out


def resolver_argv(words: Sequence[str], config: Any = None) -> tuple[list[str] | None, str | None]:
    """The ``vllm serve`` words TRL's build_command gives vLLM, for vLLM's own resolver (``None`` and why
    when TRL stops first or runs its own server around ``LLM(...)``); ``config``: the ``--config`` YAML
    as loaded. ``--enable-scale-out`` (vLLM >= 0.30.0) only adds routes: the resolver's engine settings do
    not depend on it."""
    read = read_trl(words, config=config)
    if read.error or read.unused:
        return None, f"trl vllm-serve stops first: {read.error or read.unused}"
    if read.mode != "command":
        return None, f"trl {read.release} runs its own server around vLLM's LLM(...)"
    tokens = vllm_tokens(read, words, [(i,) for i in range(len(words))], None)
    return [t.text or "" for t in tokens], None


def forwarded_words(words: Sequence[str | None]) -> list[str]:
    """The words of a ``trl vllm-serve`` argv TRL's parser does not take (TRL 1.11.0+ forwards them to
    ``vllm serve``): the only ones that are vLLM's words as written."""
    read = read_trl(words)
    return [w for k in read.remaining if (w := words[k]) is not None]
