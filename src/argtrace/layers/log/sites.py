"""Where the framework raises an error the signature catalog does not know, for the log layer's LG011.

The catalog (``data/error_signatures.json``) names the common failures with a meaning and a fix; any other
exception line a launch died with used to come out as "died during X with: MESSAGE" and a fix telling the
reader to read it. The message index that ``argtrace why`` reads (generated from the frameworks' wheels by
``scripts/gen_messages.py``, :mod:`argtrace.resolver.message_store`) knows the raise site of most of them: its
function and file, the condition that raised, and the configuration fields and environment variables that
condition reads. This module finds that site for one error line, only when the match is unambiguous (the
whole message, many literal characters), and turns its reads into the framework's flags. The site's function
and file also say the stage when the log does not (an excerpt of one line: vLLM's
``check_enough_kv_cache_memory`` in ``kv_cache_utils.py`` is the KV cache step).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from argtrace.layers.log.stages import frames_stage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.frameworks.schema import Schema

# Literal characters of the site the text must hold: a generic wrapper ("NCCL error: {error_str}", 9) says
# nothing of which settings decide it.
MIN_SITE_CHARS = 40


@dataclass(frozen=True)
class SiteHint:
    """The raise site of an error line, with the flags and variables its condition reads."""

    framework: str
    function: str
    file: str
    condition: str | None
    flags: tuple[str, ...]  # --flag spellings, then environment variables
    dests: tuple[str, ...]  # the dest names of the flags, in the same order
    stage: str | None


def site_hint(text: str, framework: str | None) -> SiteHint | None:
    """The site that raises ``text`` (its whole message found, at least ``MIN_SITE_CHARS`` literal
    characters), or None. Of several releases' copies, the newest (the sites are sorted so)."""
    from argtrace.frameworks.schema import version_key
    from argtrace.layers.log.messages import match_text

    try:
        matches = match_text(text[:4000], framework)
    except Exception:
        return None  # no message index bundled: nothing more to say than the line
    best = next(
        (
            m
            for m in matches
            if m.how == "full" and m.specificity >= MIN_SITE_CHARS and m.site.kind in ("raise", "assert")
        ),
        None,
    ) or next(
        (
            m
            for m in matches
            if m.specificity >= MIN_SITE_CHARS
            and m.site.kind in ("raise", "assert")
            and cut_inside(m.site.template, text)
        ),
        None,
    )
    if best is None:
        return None
    site = best.site
    newest = max(site.at, key=version_key) if site.at else None
    settings = settings_of(site.framework, newest, site.reads, site.template, text, site.function)
    flags = [str(x["flag"] or x["name"]) for x in settings]
    dests = [str(x["name"]) for x in settings if x.get("flag")]
    stage = frames_stage([f'  File "{site.file}", line 1, in {site.function.rsplit(".", 1)[-1]}'], text)
    return SiteHint(
        framework=site.framework,
        function=site.function,
        file=site.file,
        condition=site.conditions[-1] if site.conditions else None,
        flags=tuple(flags),
        dests=tuple(dests),
        stage=stage,
    )


_CLASS_HEAD = re.compile(r"^(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception): ")
_HOLE = re.compile(r"\{[^{}]*\}")
_CUT_MAX = 4000
_VALUE_MAX = 40  # the longest placeholder value a cut may end in (a number, a name, a size)


def cut_inside(template: str, text: str) -> bool:
    """Whether ``text`` (past its exception class) is ``template``'s message cut short: from the message's
    start, its literal pieces in order with the placeholders filled, up to the text's end inside a piece or
    inside a placeholder's value. A copy that wraps a long line at a fixed width or ends in it
    (SergiioB/intel-arc-pro-b70-inference-cookbook#4: vLLM's "To serve at least one request with the model's
    max seq len (100000), (4.26 GiB KV cach") keeps the message's first words, which the index finds only in
    part. At least ``MIN_SITE_CHARS`` of the template's literal text must be in the copy."""
    body = _CLASS_HEAD.sub("", text.strip()[:_CUT_MAX], count=1)
    if body.endswith((".", "!", "?")):
        return False  # a whole sentence: another release's wording of the message, not a copy's cut
    pieces = _HOLE.split(template)
    first = pieces[0]
    if not body.startswith(first):
        return len(body) >= MIN_SITE_CHARS and first.startswith(body)
    pos, literal = len(first), len(first)
    for piece in pieces[1:]:
        found = body.find(piece, pos + 1) if piece else -1
        if found >= 0 and (piece or found == len(body)):
            pos, literal = found + len(piece), literal + len(piece)
            continue
        rest = body[pos:]
        # the value of the placeholder, then the start of this piece, or only a value cut short
        for hole in range(1, min(len(rest), _VALUE_MAX) + 1):
            if rest[hole:] and piece.startswith(rest[hole:]):
                return literal + len(rest) - hole >= MIN_SITE_CHARS
        # only a value, cut short: a number or a name, no blank in it
        return len(rest) <= _VALUE_MAX and " " not in rest and literal >= MIN_SITE_CHARS
    return False  # the whole message: not cut


# --- the settings a site depends on (shared with `argtrace why`) ------------------------------------------
@functools.cache
def _schema(framework: str, version: str | None) -> Schema | None:
    """The schema of ``version``: the newest bundled one for ``None``, the nearest bundled one for a release
    without a schema (0.6.6.post1 for a site indexed only in vLLM 0.4.3: its flags, not 0.33.0's)."""
    from argtrace.frameworks.schema import bundled_versions, load_schema, nearest_bundled

    versions = bundled_versions(framework)
    if not versions:
        return None
    chosen = versions[-1]
    if version is not None:
        chosen = nearest_bundled(framework, version, versions) or chosen
    try:
        return load_schema(framework, chosen)
    except Exception:
        return None


def _schemas(framework: str, version: str | None) -> list[Schema]:
    """The newest schema first (a field's flag is mostly stable, and one schema keeps ``why`` quick),
    then the site's own release's (a flag renamed since: --mamba-scheduler-strategy)."""
    out = [_schema(framework, None), _schema(framework, version)]
    return [s for i, s in enumerate(out) if s is not None and s not in out[:i]]


def _flag(framework: str, version: str | None, field: str) -> str | None:
    for schema in _schemas(framework, version):
        try:
            flag = schema.flag_for_dest(field)
        except Exception:
            flag = None
        if flag:
            return flag
    return None


def _dest(framework: str, version: str | None, flag: str) -> str | None:
    for schema in _schemas(framework, version):
        option = schema.option(flag)
        if option is not None:
            return option.dest
    return None


# vLLM's help of an option whose value is a whole configuration class links that class's API page
# ("API docs: https://docs.vllm.ai/en/v0.33.0/api/vllm/config/#vllm.config.SpeculativeConfig"): the schema's
# own record of which flag a class's fields are given in.
_CLASS_LINK = r"#vllm\.config\.([A-Za-z_]\w*)"


@functools.cache
def _class_flags(framework: str, version: str | None) -> dict[str, tuple[str, str, frozenset[str]]]:
    """``{class: (dest, flag, the dests of the class's own top-level flags)}`` for each configuration
    class an option takes whole (vLLM's ``--speculative-config``: ``SpeculativeConfig``). The own flags
    are the options argparse groups under the class's name (``--logging-config`` is in ``LoggingConfig``)."""
    out: dict[str, tuple[str, str, frozenset[str]]] = {}
    for schema in _schemas(framework, version):
        for option in schema.options:
            m = re.search(_CLASS_LINK, option.help or "")
            if m is None or m.group(1) in out or not option.flag:
                continue
            own = frozenset(o.dest for o in schema.options if o.group == m.group(1))
            out[m.group(1)] = (option.dest, option.flag, own)
    return out


def _sub_config(framework: str, version: str | None, function: str, read: str) -> tuple[str, str, str] | None:
    """(parent dest, parent flag, field) when ``read`` is a field of a configuration class that one option
    takes whole: ``self.model`` in ``SpeculativeConfig.__post_init__`` is --speculative-config's ``model``
    (the draft), not --model; ``self.speculative_config.num_speculative_tokens`` anywhere is that field
    too. None for a field the class has its own flag for, and for everything else."""
    parts = read.split(".")
    classes = _class_flags(framework, version)
    owner = function.rsplit(".", 1)[0] if "." in function else ""
    if len(parts) == 2 and parts[0] == "self" and owner in classes:
        dest, flag, own = classes[owner]
        return None if parts[1] in own else (dest, flag, parts[1])
    by_dest = {dest: (dest, flag, own) for dest, flag, own in classes.values()}
    for i, part in enumerate(parts[:-1]):
        if part in by_dest and i + 2 == len(parts):
            dest, flag, own = by_dest[part]
            return None if parts[-1] in own else (dest, flag, parts[-1])
    return None


# Patterns as text, compiled by ``re`` on first use (and cached there): the CLI imports every command module
# to build its parser, and ``check`` compiled these for nothing (start-up, issue 18).
_ENV = r"^(?:SGLANG|SGL|VLLM)_[A-Z0-9_]+$"
_ENV_IN_TEXT = r"\b(?:SGLANG|SGL|VLLM)_[A-Z0-9_]+\b"


def _is_env(framework: str, name: str) -> bool:
    """``name`` is an environment variable of the framework: spelled like one and read by some release (the
    release index's variables, generated from the packages), so an enum member spelled alike is not one:
    vLLM's ``CompilationMode.VLLM_COMPILE``, which a condition compares and a message names ("make sure
    compilation mode is VLLM_COMPILE", vllm/config/compilation.py), is a value of --compilation-config's
    mode, not a variable (vllm-ascend#13346 was told to change VLLM_COMPILE). An index that records no
    variable at all says nothing: the spelling decides then."""
    if not re.match(_ENV, name):
        return False
    from argtrace.frameworks.release_index import release_index

    try:
        index = release_index(framework)
    except Exception:
        return True
    return not index.env or bool(index.releases_knowing_env(name))


def named_locals(conditions: list[str] | tuple[str, ...], message: str, reads: list[str]) -> list[str]:
    """``self.<name>`` for each bare name a site's condition tests that its message names too: the local
    copy of the field of the same name (``cudagraph_mode = self.cudagraph_mode`` in vLLM's
    ``CompilationConfig.resolve_cudagraph_mode_and_sizes``, whose warning says "setting cudagraph_mode=..."),
    which the index did not trace to the field. Only the message's words count (a placeholder's name is a
    value it prints: ``{min_cg_support}`` is a local of its own). Names already read, and names after a dot,
    are left out."""
    literal = re.sub(r"\{[^{}]*\}", " ", message)  # what it prints in words, not a value it formats in
    words = set(re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", literal))
    out: list[str] = []
    for condition in conditions:
        for m in re.finditer(r"(?<![\w.])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b(?!\s*\()", condition):
            name = f"self.{m.group(1)}"
            if m.group(1) in words and name not in reads and name not in out:
                out.append(name)
    return out


# an imperative that names what to change ("increase the swap space", "lower the gpu memory utilization")
_ADVICE = (
    # "Please check whether your reasoning parser has implemented ..." (vLLM's VllmConfig, vllm#49379): the
    # setting it asks to look at is the one to change
    r"\b(?:increase|decrease|reduce|lower|raise|adjust|enable|disable|check(?:\s+(?:whether|that|if))?)"
    r"\s+(?:the\s+|your\s+)?"
    r"((?:[a-z][a-z0-9]*\s+){1,3}[a-z][a-z0-9]*)"
)
_ARGPARSE_PREFIX = r"\bargument (--[a-z][a-z0-9-]+)(?:/-{1,2}[A-Za-z0-9-]+)*: "


def _spelled(framework: str, version: str | None, message: str) -> list[tuple[str, str]]:
    """The settings (dest, flag) two to four consecutive words of the message spell (``context length``)."""
    words = re.findall(r"[a-z][a-z0-9]*", message.lower())
    out: dict[str, str] = {}
    for size in (4, 3, 2):
        for i in range(len(words) - size + 1):
            field = "_".join(words[i : i + size])
            if field not in out and (flag := _flag(framework, version, field)):
                out[field] = flag
    return list(out.items())


def _abbreviates(short: str, full: str) -> bool:
    """``context_len`` abbreviates ``context_length``: as many parts, each a prefix of the other's."""
    a, b = short.split("_"), full.split("_")
    if short == full or len(a) != len(b) or len(a) < 2:
        return False
    return all(x and y.startswith(x) for x, y in zip(a, b, strict=True))


_REQUEST_ROOT = re.compile(r"(?:\w+_)?(?:raw_)?req(?:uest)?s?|obj")


def _request_field(read: str) -> bool:
    """A field of what a client sent, not of the server's configuration: ``request.model``,
    ``raw_request.headers``, ``obj.lora_path`` (SGLang's request object), named so in both frameworks' serving
    code; ``cfg.x``, ``server_args.x`` or ``model_config.x`` are the server's."""
    chain = read.split(".")
    return len(chain) > 1 and bool(_REQUEST_ROOT.fullmatch(chain[0]))


# a quantization method's class (vLLM's and SGLang's `...LinearMethod`, `...MoEMethod`, subclasses of
# `QuantizeMethodBase`): its own attributes hold the checkpoint's quantization config, never a launch setting
# (vllm 0.33.0 modelopt_block_quant.py: `self.block_size` is the codec's block, not --block-size)
_QUANT_METHOD = re.compile(r"\w+Method\.")


def _own_attribute(read: str, function: str) -> bool:
    """``self.X`` read in a quantization method: the method's own state, not a setting of the same name."""
    return read.count(".") == 1 and read.startswith("self.") and bool(_QUANT_METHOD.match(function))


def settings_of(
    framework: str, version: str | None, reads: list[str], message: str, text: str = "", function: str = ""
) -> list[dict[str, Any]]:
    """The settings a site depends on: flags and variables its message names (first), then the
    configuration fields and environment variables its condition reads (``via``: the chain read), then
    the framework variables the pasted text names where the message has a placeholder
    (``Unknown vLLM environment variable detected: VLLM_X``: ``named_in_text``). A field of a configuration
    class one option takes whole is that option, with the ``fields`` read (``_sub_config``)."""
    out: list[dict[str, Any]] = []
    own = {read for read in reads if _own_attribute(read, function)}
    if own:  # neither read nor named: `{self.block_size}` in the message prints its value, not a flag's name
        reads = [read for read in reads if read not in own]
        message = re.sub(
            r"\{(self\.\w+)[^{}]*\}", lambda m: "{}" if m.group(1) in own else m.group(0), message
        )

    def add(entry: dict[str, Any], first: bool = False) -> None:
        same = next((s for s in out if s["name"] == entry["name"]), None)
        if same is not None:
            for field in entry.get("fields", ()):
                if field not in same.setdefault("fields", []):
                    same["fields"].append(field)
            return
        out.insert(0, entry) if first else out.append(entry)

    def sub(read: str) -> dict[str, Any] | None:
        found = _sub_config(framework, version, function, read)
        if found is None:
            return None
        dest, flag, field = found
        return {"name": dest, "flag": flag, "fields": [field], "via": read}

    for read in reads:
        parent = sub(read)
        if parent is not None:
            add(parent)
            continue
        if read.startswith("env:"):
            add({"name": read[4:], "flag": None, "env": True, "via": read})
            continue
        last = read.rsplit(".", 1)[-1]
        if _is_env(framework, last):
            add({"name": last, "flag": None, "env": True, "via": read})
            continue
        if _request_field(read):
            continue  # ``request.model``: the model a request names, not --model (THUDM/LongBench#102)
        flag = _flag(framework, version, last)
        if flag:
            add({"name": last, "flag": flag, "via": read})
            continue
        derived = _derived(framework, version, read, function)
        if derived:
            for entry in derived:
                add(entry)
            continue
        switch = f"enable_{last[: -len('_config')]}" if last.endswith("_config") else ""
        if switch and (flag := _flag(framework, version, switch)):
            # a configuration object only one switch builds: vLLM's create_engine_config makes
            # ``lora_config`` only under --enable-lora (``LoRAConfig(...) if self.enable_lora else None``), so
            # reading it (``when: self.lora_config``) reads that switch (QwenLM/Qwen2.5-Omni#302)
            add({"name": switch, "flag": flag, "via": read})
    spelled = _spelled(framework, version, message)
    for read in reads:
        # a read the message spells out in full ("the model's context length" over ``self.context_len``,
        # which TokenizerManager copies from --context-length): the setting by both signs, first
        chain = read.split(".")
        if chain[0] != "self" and not any("config" in c or "args" in c for c in chain[:-1]):
            continue  # a request's or a batch's field (obj.lora_path), not the server's configuration
        for field, flag in spelled:
            if _abbreviates(chain[-1], field) and not any(e["name"] == field for e in out):
                add(
                    {"name": field, "flag": flag, "via": read, "named_in_message": True, "in_words": True},
                    True,
                )
    named: list[dict[str, Any]] = []
    for flag in dict.fromkeys(re.findall(r"--[a-z][a-z0-9-]+", message)):
        dest = _dest(framework, version, flag)
        if dest:
            named.append({"name": dest, "flag": flag, "named_in_message": True})
    for word in dict.fromkeys(re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", message)):
        parent = sub(f"self.{word}") if f"self.{word}" in reads else None
        if parent is not None:
            named.append(parent | {"named_in_message": True})
            continue
        flag = _flag(framework, version, word)
        if flag:
            named.append({"name": word, "flag": flag, "named_in_message": True})
    for word in dict.fromkeys(re.findall(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", message)):
        if _is_env(framework, word):
            named.append({"name": word, "flag": None, "env": True, "named_in_message": True})
    for entry in reversed(named):
        replaced = next((s for s in out if s["name"] == entry["name"]), None)
        out[:] = [s for s in out if s["name"] != entry["name"]]
        add(entry, first=True)
        for field in (replaced or {}).get("fields", ()) if "fields" in entry else ():
            if field not in out[0]["fields"]:
                out[0]["fields"].append(field)
    for m in re.finditer(_ADVICE, message.lower()):
        # the message tells what to change in words ("Please increase the swap space"): that setting first,
        # even when the condition reads others (the free CPU blocks --swap-space sizes one step away)
        words = m.group(1).split()
        for size in range(len(words), 1, -1):
            field = "_".join(words[:size])
            flag = _flag(framework, version, field)
            if flag and not any(s["name"] == field for s in out):
                add({"name": field, "flag": flag, "named_in_message": True, "in_words": True}, first=True)
                break
    if not out and (argument := re.search(_ARGPARSE_PREFIX, text)):
        # argparse puts "argument --flag/-f: " before what a converter raises (ArgumentTypeError, ValueError):
        # the flag whose value failed is in the pasted text, not in the converter's own message
        dest = _dest(framework, version, argument.group(1))
        if dest:
            add({"name": dest, "flag": argument.group(1), "named_in_text": True}, first=True)
    if not out:
        # a message that spells a setting in words ("provide a chat template") and names nothing else
        words = re.findall(r"[a-z][a-z0-9]*", message.lower())
        for size in (4, 3, 2):
            for i in range(len(words) - size + 1):
                field = "_".join(words[i : i + size])
                flag = _flag(framework, version, field)
                if flag:
                    add({"name": field, "flag": flag, "named_in_message": True, "in_words": True})
    if "{" in message:
        # a flag the text prints where the message has a placeholder (vllm#17355: "VLLM_USE_V1=1 is not
        # supported with {feature_name}." printed with --kv-cache-dtype): the setting the message is about
        for flag in _flags_in_placeholders(message, text):
            dest = _dest(framework, version, flag)
            if dest and not any(s["name"] == dest for s in out):
                add({"name": dest, "flag": flag, "named_in_text": True})
        for word in dict.fromkeys(re.findall(_ENV_IN_TEXT, text)):
            if word not in message:
                add({"name": word, "flag": None, "env": True, "named_in_text": True})
    return out


def _derived(framework: str, version: str | None, read: str, function: str) -> list[dict[str, Any]]:
    """The flags that decide a vLLM configuration field no flag of its name sets (``use_ubatching``:
    --enable-dbo, --ubatch-size; ``world_size``: the parallel sizes), from the table generated from the
    releases' source (frameworks/vllm_config_fields.py); each entry says the field it sets."""
    if framework != "vllm":
        return []
    from argtrace.frameworks.vllm_config_fields import derived_field

    found = derived_field(version, read, function)
    if found is None:
        return []
    out = []
    for flag in found.flags:
        dest = _dest(framework, version, flag) or flag.lstrip("-").replace("-", "_")
        out.append({"name": dest, "flag": flag, "via": read, "sets": found.field, "sets_at": found.at})
    return out


def _flags_in_placeholders(message: str, text: str) -> list[str]:
    """The ``--flags`` the text prints where the message has a placeholder: the text between two literal
    pieces found in order, or the one word after the last piece when the message ends in a placeholder
    (a joined paste goes on with other lines' words)."""
    parts = re.split(r"\{[^{}]*\}", message)
    pieces = [p.strip() for p in parts]
    at = text.find(pieces[0]) if pieces[0] else -1
    if at < 0:
        return []
    at += len(pieces[0])
    fills = []
    for piece in pieces[1:]:
        if not piece:  # the message ends in a placeholder: its first word
            fills.append((text[at:].split() or [""])[0])
            break
        nxt = text.find(piece, at)
        if nxt < 0:  # the paste stops before the piece (a title, a cut line): the placeholder's first word
            fills.append((text[at:].split() or [""])[0])
            break
        fills.append(text[at:nxt])
        at = nxt + len(piece)
    return list(dict.fromkeys(f for fill in fills for f in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", fill)))
