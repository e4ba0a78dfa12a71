"""Fixes ``why`` words from what a matched site reads: the settings its conditions read (not every read of
its function), a converter argparse names in the text (json.loads), a request's own fields (what a client
sent, not a launch setting). Split from why.py, which composes them in ``_avoid``."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def in_conditions(group: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The settings the site's conditions themselves read (``when: self.lora_config``: --enable-lora), of all
    those its function reads: naming only these keeps a test-only variable or an unrelated option the
    function also reads out of the fix (vLLM's load_model reads VLLM_TEST_DYNAMO_FULLGRAPH_CAPTURE and
    --compilation-config too, QwenLM/Qwen2.5-Omni#302). Empty when the conditions name none of them."""
    conditions = " ".join(group.get("conditions") or ())
    vias = [str(s["via"]) for s in group["settings"] if s.get("via")]

    def read_there(setting: Mapping[str, Any]) -> bool:
        return bool(re.search(rf"(?<![\w.]){re.escape(str(setting['via']))}(?![\w])", conditions))

    def explained(read: str) -> bool:
        return any(read == v or read.startswith(v + ".") or v.startswith(read + ".") for v in vias)

    reads = []
    for m in re.finditer(r"(?<![\w.])(self(?:\.\w+)+|envs\.\w+)(\()?", conditions):
        # a method's result (``self.speculative_config.use_eagle()``) reads the object it is called on
        reads.append(m.group(1).rsplit(".", 1)[0] if m.group(2) else m.group(1))
    # a condition on something derived (``self.world_size``: the parallel sizes multiplied, vLLM's
    # ParallelConfig) reads settings no via names: then every read of the function stays a candidate
    if not reads or not all(explained(r) for r in reads if r != "self"):
        return []
    if not any(s.get("via") and read_there(s) for s in group["settings"]):
        return []
    # a setting the message names (no ``via``) stays: the message says it is the one to change
    return [s for s in group["settings"] if not s.get("via") or read_there(s)]


def failing_first(
    settings: Sequence[Mapping[str, Any]], condition: str | None, message: str
) -> list[Mapping[str, Any]]:
    """The settings in the order a fix names them: the flags that make a configuration field the failing
    (last) condition or the message reads first (``not (parallel_config.local_world_size <=
    visible_device_count)``: the parallel sizes that make ``local_world_size``, vllm PR#28873), then the
    rest in their order. Only such derived entries (``sets``) move: the order of the others is the
    site's."""

    def first(setting: Mapping[str, Any]) -> bool:
        via = str(setting.get("via") or "")
        if not (via and setting.get("sets")):
            return False
        tail = via[len("self.") :] if via.startswith("self.") else via
        field = tail.rsplit(".", 1)[-1]
        return tail in (condition or "") or re.search(rf"(?<![\w.]){re.escape(field)}\b", message) is not None

    return sorted(settings, key=lambda s: not first(s))


def converter_fix(group: Mapping[str, Any], text: str) -> str | None:
    """argparse's "argument --flag: Value X cannot be converted to <function loads ...>": the converter the
    text names is json.loads, so the value must be JSON; the fix of ``check``'s PA011 for that value
    (json_values.json_value_fix), with key=value pairs written out as the JSON object they mean
    (X-PLUG/MobileAgent#162: ``--limit-mm-per-prompt image=5``)."""
    if "cannot be converted to" not in str(group["message"]):
        return None
    m = re.search(
        r"argument (--[\w-]+)(?:/-\w+)?: Value (.+?) cannot be converted to <function(?: (\w+))?", text
    )
    if m is None:
        # the message without argparse's "argument --x:" (spark-vllm-docker#163 retold it so): the value
        # alone, when it shows how it is broken JSON (its keys without their double quotes)
        from argtrace.layers.parser.json_fixes import bare_keys_json, json_value_fix

        bare = re.search(r"\bValue ([\[{].*?) cannot be converted to <function(?: (\w+))?", text)
        if bare is None or bare.group(2) not in (None, "loads"):
            return None
        meant = bare_keys_json(bare.group(1))
        how = json_value_fix(bare.group(1)) or (
            "its keys have no double quotes, which JSON needs around keys and strings: the server must "
            f"receive {meant}, in single quotes on a shell's command line (a launcher or wrapper that "
            "re-quotes the arguments can remove them on the way)"
            if meant
            else None
        )
        return (
            f"the flag's value is read with json.loads, which refused {bare.group(1)!r}: {how}"
            if how
            else None
        )
    said = "the text's <function loads>"
    if m.group(3) is None:
        # the paste stops at "<function" (an issue title, vllm#39687): the converter is the flag's in the
        # newest schema when that one reads JSON (its json_flags), said as that release's
        newest = _json_reader(str(group.get("framework") or ""), m.group(1))
        if newest is None:
            return None
        said = f"vllm {newest}'s converter; the text's is cut"
    elif m.group(3) != "loads":
        return None
    from argtrace.layers.parser.json_fixes import json_value_fix

    flag, value = m.group(1), m.group(2)
    how = (
        _python_repr_fix(flag, value) or json_value_fix(value, text) or "give it valid JSON, in single quotes"
    )
    pairs = re.fullmatch(r"[\w.-]+=[^,=]*(?:,[\w.-]+=[^,=]*)*", value)
    if pairs:
        import json

        obj = {k: int(v) if v.isdigit() else v for k, _, v in (p.partition("=") for p in value.split(","))}
        how += f": {flag} '{json.dumps(obj)}'"
    return f"{flag} is read with json.loads ({said}), which refused {value!r}: {how}"


def refused_json_fix(group: Mapping[str, Any], text: str, release: str | None) -> str | None:
    """argparse's "argument --flag: Value X cannot be converted to <function ...>" for a value that is valid
    JSON: the reader took it, and the configuration class it builds refused it (vLLM's ``parse_type`` wraps
    the class's ValueError). ``check``'s rules for that value say why: a launch of the one flag is checked as
    ``check`` checks one (no shell check, no resolution, the release the text or --framework-version names),
    and its first error or warning on the flag's setting is the fix (vllm#19448: PA043, a kv_connector
    without kv_role)."""
    if "cannot be converted to" not in str(group["message"]):
        return None
    m = re.search(r"argument (--[\w-]+)(?:/-\w+)?: Value (.+?) cannot be converted to", text)
    framework = str(group.get("framework") or "")
    if m is None or framework not in ("vllm", "sglang"):
        return None
    from argtrace import safe_json

    flag, value = m.group(1), m.group(2)
    try:
        safe_json.loads(value)
    except ValueError:
        return None  # not JSON: the converter's own refusal (converter_fix)
    found = _checked_value(framework, release, flag, value)
    if found is None:
        return None
    code, message, fix = found
    return f"{flag}'s value is valid JSON, so the configuration it builds refused it: {code}: {message}" + (
        f"; fix: {fix}" if fix else ""
    )


@functools.lru_cache(maxsize=8)
def _checked_value(framework: str, release: str | None, flag: str, value: str) -> tuple[str, str, str] | None:
    import shlex

    from argtrace.check import run_check
    from argtrace.check_options import CheckOptions

    program = "vllm serve m" if framework == "vllm" else "python -m sglang.launch_server --model-path m"
    options = CheckOptions(
        script=None,
        script_args=(),
        command_string=f"{program} {flag} {shlex.quote(value)}",
        env={},
        framework=framework,
        framework_version=release,
        run_shellcheck=False,
        resolve=False,
    )
    try:
        report = run_check(options)
    except Exception:
        return None
    dest = flag.removeprefix("--").replace("-", "_")
    for f in report.findings:
        if f.severity in ("error", "warning") and f.setting == dest:
            return f.code, f.message, f.fix or ""
    return None


def _json_reader(framework: str, flag: str) -> str | None:
    """The newest bundled release of ``framework`` when its schema reads ``flag`` with json.loads, or None."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    versions = bundled_versions(framework) if framework else []
    if not versions:
        return None
    try:
        schema = load_schema(framework, versions[-1])
    except Exception:
        return None
    option = schema.option(flag)
    return versions[-1] if option is not None and option.dest in schema.json_flags else None


def _python_repr_fix(flag: str, value: str) -> str | None:
    """A refused value that is a Python dict's repr (``{'architectures': [...]}``: single-quoted keys that
    ast.literal_eval reads and json.loads does not) was not typed: it is what ``str(dict)`` makes. vLLM's
    ``--config`` file reader makes it from a YAML mapping in the releases that end in ``str(value)``
    (frameworks/vllm_config_file.py; vllm PR#33196), and so does a program that passes ``str(d)``."""
    import ast
    import json

    from argtrace import safe_json
    from argtrace.frameworks.vllm_config_file import first_json_release

    if not value.startswith("{") or len(value) > 100_000:
        return None
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    try:
        safe_json.loads(value)
    except ValueError:
        pass
    else:
        return None  # JSON already: refused for another reason
    if not isinstance(parsed, dict):
        return None
    key = flag.removeprefix("--").replace("-", "_")
    newer = first_json_release()
    return (
        "the value is a Python dict's repr, not JSON: vLLM's --config file reader turns a YAML mapping "
        "into str(value)" + (f" before vllm {newer}" if newer else "") + ", and so does a program that "
        f"passes str(dict); in the YAML file write it as a JSON string ({key}: '{json.dumps(parsed)}'), "
        "from a program pass json.dumps(value)"
    )


def request_fields(group: Mapping[str, Any]) -> str | None:
    """The fix of a message that prints what a request sent (``The model `{request.model}` does not
    exist.``): the client's request is what to change, and the server option that names the values it
    accepts when the framework has one spelled ``--served-<field>-name`` or ``--served-<field>`` (from the
    release's schema; THUDM/LongBench#102: a client asking for a path the server serves under another
    name)."""
    from argtrace.layers.log.sites import _flag

    fields = list(dict.fromkeys(re.findall(r"\{(?:request|req|raw_request)\.(\w+)\}", str(group["message"]))))
    if not fields:
        return None
    newest = (group.get("releases") or [None])[-1]
    served = [
        flag
        for field in fields
        for dest in (f"served_{field}_name", f"served_{field}")
        if (flag := _flag(str(group["framework"]), newest, dest))
    ]
    names = ", ".join(f"`{f}`" for f in fields)
    accepted = f"; the server accepts the values given with {', '.join(served)}" if served else ""
    return (
        f"raised for a request: it prints the request's {names}, not a launch setting; change what the "
        f"client sends{accepted}"
    )


# the exceptions an import or a package-metadata lookup raises: a handler of one that raises its own message
# says the package is missing (SGLang's assert_pkg_version: "{pkg} with minimum required version
# {min_version} is not installed." under ``except PackageNotFoundError``)
_LOOKUP_FAILED = frozenset({"ImportError", "ModuleNotFoundError", "PackageNotFoundError"})


def lookup_handler_fix(group: Mapping[str, Any], advice: str | None) -> str | None:
    """The fix of a site raised in a handler of a failed import or package lookup whose message does not
    print the caught exception: the package is not installed (this message is the cause, not a report of
    another one). None for any other site."""
    handler = next((str(c) for c in group.get("conditions") or () if str(c).startswith("except")), None)
    if handler is None:
        return None
    caught = handler[len("except") :].strip()
    names = {n.rsplit(".", 1)[-1] for n in re.findall(r"[\w.]+", caught)}
    if not names or not names <= _LOOKUP_FAILED:
        return None
    holes = re.findall(r"\{([^{}]*)\}", str(group.get("message") or ""))
    if any(h.strip() in ("e", "ex", "exc", "err", "error", "exception") for h in holes):
        return None  # it prints the caught error: that one is the cause
    said = f"; its message says {advice.strip()!r}" if advice else ""
    return (
        f"{group['function']} raises this when its import or package lookup fails ({caught}): the package "
        f"its message names is not installed in this environment (or not under that name): install it{said}"
    )


def key_handler_fix(group: Mapping[str, Any], change: str) -> str | None:
    """The fix of a site raised in a handler of a failed lookup by name (``except KeyError``) whose message
    prints the name it looked up but not the caught error: the name is not one its table holds, so this
    message is the refusal of that value, not a report of another error (vLLM's
    ``_AttentionBackendEnumMeta.__getitem__``, "Unknown attention backend: '{name}'. Valid options are:
    ...", vllm/v1/attention/backends/registry.py:29 in 0.33.0; vllm-ascend#4197). None for any other site."""
    handler = next((str(c) for c in group.get("conditions") or () if str(c).startswith("except")), None)
    if handler is None:
        return None
    caught = handler[len("except") :].strip()
    names = {n.rsplit(".", 1)[-1] for n in re.findall(r"[\w.]+", caught)}
    message = str(group.get("message") or "")
    holes = [h.strip() for h in re.findall(r"\{([^{}]*)\}", message)]
    if names != {"KeyError"} or not holes or any(h in _CAUGHT_NAMES for h in holes):
        return None
    listed = re.search(r"(?i)\b(?:valid|options|choices?|available|supported)\b", _HOLES.sub(" ", message))
    said = ": its message lists the names it knows" if listed else ""
    return (
        f"{group['function']} raises this when the name it looks up is not one it knows (the KeyError of its "
        f"own lookup){said}; the value it names is refused, not another error reported"
        + (change or ": the setting, file or plugin that gave that name")
    )


_CAUGHT_NAMES = frozenset({"e", "ex", "exc", "err", "error", "exception"})


_HOLES = re.compile(r"\{[^{}]*\}")


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def in_one_line(template: str, lines: Sequence[str]) -> bool:
    """Whether a template's literal pieces occur, in order, within one line of the text (a reason is a few
    words: across two log lines they are two other messages' words), the first one where a word begins and
    each placeholder between two of them holding a value. vLLM's MLA prefill reason "dtype {dtype} not
    supported" is not in "kv_cache_dtype not supported" (vllm#48406): its "dtype" ends another word there,
    and nothing stands for the dtype."""
    pieces = _HOLES.split(template)
    for line in lines:
        at, prev_end, ok = 0, None, True
        for i, piece in enumerate(pieces):
            if not piece.strip():
                continue
            found = line.find(piece, at)
            while found > 0 and prev_end is None and _word(piece[0]) and _word(line[found - 1]):
                found = line.find(piece, found + 1)  # the first piece begins a word
            if found < 0 or (prev_end is not None and i > 0 and not line[prev_end:found].strip()):
                ok = False
                break
            at = prev_end = found + len(piece)
        if ok:
            return True
    return False


def registry_fix(group: Mapping[str, Any], text: str) -> str | None:
    """A name a vLLM registry refuses at start-up: the names the site's release takes and the releases that
    take the refused one, each read from the wheels. "No tokenizer registered for tokenizer_mode='X'"
    (frameworks/vllm_tokenizer_modes.py; vllm#30933: deepseek_v32 on 0.12.0, registered from 0.13.0) and
    "Unsupported connector type: X" (the KV connector factory's registry, scripts/gen_kv_connectors.py;
    LMCache#1759: LMCacheConnector on 0.11.0, where only LMCacheConnectorV1 is left)."""
    from argtrace.frameworks.entrypoints import describe_span

    message = str(group["message"])
    takes: dict[str, set[str]] = {}
    if "No tokenizer registered for" in message:
        m = re.search(r"tokenizer_mode=['\"]([^'\"]+)['\"]", text)
        from argtrace.frameworks.vllm_tokenizer_modes import bundled_modes

        what, flag = "tokenizer", "--tokenizer-mode"
        takes = bundled_modes()
    elif "Unsupported connector type" in message:
        m = re.search(r"Unsupported connector type:? ['\"]?([\w.-]+)", text)
        from argtrace.layers.disaggregation import bundled_connectors

        what, flag = "KV connector", "--kv-transfer-config's kv_connector"
        takes = bundled_connectors()
    else:
        return None
    read = [v for v in group["releases"] if v in takes]
    if m is None or not read:
        return None
    word, version = m.group(1), read[-1]
    names = ", ".join(sorted(takes[version]))
    fix = f"{flag} {word!r} names no {what} vllm {version} registers; it takes {names}"
    others = [v for v in takes if word in takes[v]]
    if others:
        from argtrace.frameworks.schema import version_key

        span = describe_span("vllm", sorted(others, key=version_key))
        return f"{fix}; vllm {span} take {word!r}: run one of those, or give a name vllm {version} takes"
    return f"{fix}: give one of those"


_OLD_NAME = re.compile(r"(?<![\w-])(--[a-z][\w.-]*|(?:VLLM|SGLANG|SGL)_[A-Z0-9_]+)\b")
_NEW_FLAG = re.compile(r"\b[Uu]se (?:the )?(--[a-z][\w.-]*[\w])")


def replacement_fix(group: Mapping[str, Any], text: str) -> str | None:
    """A deprecation the release prints that names its replacement flag: "Using VLLM_ATTENTION_BACKEND
    environment variable is deprecated ... Please use --attention-config.backend command line argument"
    (vLLM 0.14.1, EuroEval#1488): the fix is that flag in place of the old name, not "make the condition
    false". The old name is the last flag or variable before "deprecated", the new one the flag after
    "use"."""
    if "deprecated" not in str(group["message"]).lower():
        return None
    before, sep, after = text.partition("deprecated")
    olds = _OLD_NAME.findall(before)
    new = _NEW_FLAG.search(after)
    if not sep or not olds or new is None or new.group(1) == olds[-1]:
        return None
    old, flag = olds[-1], new.group(1)
    if old.startswith("--"):
        return (
            f"{old} is deprecated in the release that printed this; its message names the replacement: {flag}"
        )
    return (
        f"{old} is deprecated in the release that printed this; its message names the replacement: pass "
        f"{flag} with the value {old} held, and unset {old}"
    )


# a request's own length check (vLLM's OpenAIServing._validate_input, SGLang's tokenizer manager): the server
# started and refused one request
_REQUEST_LENGTH = re.compile(
    r"maximum context length is \{|is longer than the model's context length"
    r"|exceeds the maximum allowed length|exceeds the model's maximum context length"
)


def request_length_note(message: str) -> str:
    """What a request-length refusal adds to its fix: the request is the other side of the comparison (its
    prompt plus max_tokens), and a release may report the numbers wrongly (vllm#33418: 0.15's "maximum
    context length is 3 tokens" for a 2048-token window and a max_tokens of 2045). Empty for other
    messages."""
    if not _REQUEST_LENGTH.search(message):
        return ""
    return (
        "; it is one request's check, not the launch's: the server runs, and this request's prompt plus its "
        "max_tokens do not fit the context length: send a shorter prompt or a lower max_tokens"
    )


_NO_PARAMETER = re.compile(r"no module or parameter named", re.I)
_NAMED_IN = re.compile(r"named ['\"](?P<name>[\w.]+)['\"] in (?P<cls>[A-Z]\w*)")


def weight_name_fix(group: Mapping[str, Any], text: str) -> str | None:
    """The fix for a weight loader's refusal of a checkpoint tensor's name (vLLM's AutoWeightsLoader: "There
    is no module or parameter named 'layers' in Qwen2_5_VLForEmbedding", vllm#13373): the checkpoint's
    weights were saved for another model class than the one its config names. None for other messages."""
    if not _NO_PARAMETER.search(str(group["message"])):
        return None
    m = _NAMED_IN.search(text)
    named = f"{m.group('name')!r} in {m.group('cls')}" if m else "the name the text gives"
    return (
        f"the checkpoint's tensor names do not fit the model class the server built ({named}): the config's "
        "architectures names a class these weights were not saved for (a fine-tune saved under another "
        "class), or the checkpoint was made for another release or library; name the class the weights fit "
        "(config.json's architectures, or vLLM's --hf-overrides) and serve it for the task it is for"
    )


_REPO_NOT_FOUND = re.compile(r"Repository Not Found for url", re.I)
_GATED = re.compile(r"Cannot access gated repo for url", re.I)
# the repository id in the Hub URL the text quotes: <id>/resolve/<rev>/<file> or /api/models/<id>/revision/
_HUB_ID = re.compile(
    r"(?:Repository Not Found|Cannot access gated repo) for url:? https?://[^/\s]+/(?:api/models/)?"
    r"(?P<id>[^\s/]+(?:/[^\s/]+)?)/(?:resolve|revision|tree)/"
)


def hub_repo_fix(group: Mapping[str, Any], text: str) -> str | None:
    """The fix for huggingface_hub's RepositoryNotFoundError (vast-ai/base-image#128: "Qwen/Qwen3.5-27B-AWQ",
    an id with no repository; boson-ai/higgs-audio#123: a bare folder name no directory matched, read as an
    id): the Hub answers 401 "Repository Not Found" both for an id that does not exist and for a private or
    gated one asked without a token, so the fix names both. Its GatedRepoError (ray-project/ray#54812: the
    HF_TOKEN of a Ray Serve deployment's runtime_env did not reach vLLM V1's engine processes) is a
    repository that exists: the token is missing where the Hub is read, or its account lacks access. None
    for other messages."""
    m = _HUB_ID.search(text)
    repo = repr(m.group("id")) if m else "the id in the URL"
    if _GATED.search(str(group["message"])):
        return (
            f"the Hub's repository {repo} is gated: the request carried no token, or the token's account "
            "has not been granted access: accept the model's terms on its page with that account, and give "
            "its token (HF_TOKEN) to every process that reads the Hub (the server's environment and its "
            "workers': a container's env, a Ray runtime_env that reaches the engine's processes, a "
            "Kubernetes secret mounted as HF_TOKEN), or serve a local copy of the weights; no other server "
            "setting changes it"
        )
    if not _REPO_NOT_FOUND.search(str(group["message"])):
        return None
    return (
        f"the Hub has no repository {repo} this request may read: an id that does not exist (misspelt, or a "
        "local folder that is not where the process runs, which is then read as an id) or a private or gated "
        "repository asked for without a token: name a repository that exists (its page on the Hub) or a "
        "folder that exists, or give a token with access (HF_TOKEN); no other server setting changes it"
    )


_QUANT_FILE = re.compile(r"Cannot find the config file for \{")
_QUANT_METHOD = re.compile(r"Cannot find the config file for (?P<m>[A-Za-z][\w-]*)")


def quant_config_fix(group: Mapping[str, Any], text: str) -> str | None:
    """The fix for vLLM's get_quant_config finding no config file of the quantization method among the model
    folder's *.json (vllm-ascend#6790: 'ascend' on DeepSeek-V3.1 weights; vllm#13612: 'gptq'): vLLM 0.33.0's
    model_loader/weight_utils.py:372-380 globs the folder for the method's own file names, so the weights
    are not quantized with the method the launch names (or the file was not copied). None for other
    messages."""
    if not _QUANT_FILE.search(str(group["message"])):
        return None
    m = _QUANT_METHOD.search(text)
    method = m.group("m") if m else "the method"
    return (
        f"--quantization {method} asks for {method}'s quantization config file among the model folder's "
        "*.json files, and the folder holds none: the weights are not quantized with it (or that file was "
        "not copied with them): leave --quantization unset so the method comes from the checkpoint's own "
        f"config, or point --model at weights quantized with {method}"
    )


_CONNECTOR_PART = re.compile(r"kv_connector/v\d+/(?P<name>[a-z0-9]+?)(?:_connector)?(?:/|\.py$)")


def peer_mismatch_fix(group: Mapping[str, Any]) -> str | None:
    """The fix for a KV connector's handshake that reached another engine than the one the request named
    (vLLM's NixlConnector: "Remote NIXL agent engine ID mismatch", vllm#27083, where
    VLLM_NIXL_SIDE_CHANNEL_HOST was not set on two nodes): the address it connected to is the one the remote
    engine advertises, from the connector's host and port variables, which are read from the framework's
    bundled variable table (vLLM's envs.py). None for other messages or when the release reads none."""
    message = str(group["message"]).lower()
    if "mismatch" not in message or "handshake" not in str(group.get("function", "")).lower():
        return None
    m = _CONNECTOR_PART.search(str(group.get("file", "")))
    if m is None:
        return None
    from argtrace.frameworks.schema import bundled_versions, load_schema

    versions = bundled_versions(group["framework"], include_user=False)
    if not versions:
        return None
    token = m.group("name").upper()
    try:
        known = load_schema(group["framework"], versions[-1]).env_var_names
    except Exception:  # a damaged bundled table: no fix rather than no answer
        return None
    names = sorted(n for n in known if token in n and n.endswith(("_HOST", "_PORT")))
    if not names:
        return None
    return (
        "the handshake reached another engine than the one the request named: it connects to the address the "
        f"remote engine advertises ({', '.join(names)}): on several nodes set the host to each node's own "
        "reachable address (the default is localhost), and give engines that share a node distinct ports"
    )
