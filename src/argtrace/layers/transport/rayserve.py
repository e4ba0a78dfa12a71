"""Ray Serve LLM as a launch carrier: a serve config (``serve run``/``serve deploy`` YAML, a KubeRay
RayService's ``spec.serveConfigV2``) whose application is ``ray.serve.llm:build_openai_app`` with
``args.llm_configs``.

This module owns telling such a file apart (:func:`is_serve_config`), reading each ``llm_configs`` entry the
way Ray does, and handing the vLLM engine it starts to the later layers as a ``vllm serve`` argv. What Ray
does, read from the ray 2.60.0 wheel (``src/argtrace/data/ray_serve_llm.json``, written by
``scripts/gen_ray_serve_llm.py``; never imported):

- an entry is an ``LLMConfig`` (or the path of a YAML file holding one, ``LLMConfig.from_file``); it and its
  ``model_loading_config`` forbid keys they do not define (``extra="forbid"``): TP081;
- ``engine_kwargs`` keys are split into vLLM's ``FrontendArgs`` and ``AsyncEngineArgs`` fields, any other key
  is ``Unknown engine argument: KEY`` (``VLLMEngineConfig.from_llm_config``); ``model`` and
  ``served_model_name`` are refused and set from ``model_loading_config`` (``model_source``, else
  ``model_id``; ``served_model_name`` is ``[model_id]``); ``distributed_executor_backend`` is forced to
  ``ray`` on GPUs (another value refused): TP080;
- the values reach ``AsyncEngineArgs(**kwargs)`` as Python values, not as words: argtrace writes each as the
  ``vllm serve`` flag of the same dest (the newest bundled vLLM schema names the flag and whether it is a
  boolean switch), so the parser and later layers check them like a command line. A key the fields table
  shows to have no flag (``model_weights``) stays unknown (TP082); a key no vLLM release has is written as
  ``--key-with-dashes`` and the parser says which releases refuse it;
- ``runtime_env.env_vars`` are the replica's environment.

Not followed (TP082, info): other builders and custom deployments, ``server_cls`` (SGLang through Ray), an
``llm_configs`` path that is not readable here, placement groups and ``accelerator_type`` (the GPUs are
``tensor_parallel_size`` x ``pipeline_parallel_size`` per replica, placed by Ray).
"""

from __future__ import annotations

import difflib
import functools
import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import replace

from argtrace.layers.transport.context import TransportResult
from argtrace.layers.transport.yamlnodes import _get, _items, _load_yaml_nodes, _scalar, _seq
from argtrace.localfs import read_regular
from argtrace.model import EnvValue, Evidence, Origin, ServerCommand, Word
from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# An llm_config file is a page of YAML; the limit only keeps a huge or endless file from filling memory.
MAX_LLM_CONFIG_BYTES = 16 * 1024 * 1024
BUILDER = "ray.serve.llm:build_openai_app"
RAY_SOURCE = "https://github.com/ray-project/ray/blob/ray-{release}/python/{path}"


@functools.cache
def table() -> Mapping[str, Any]:
    data: Mapping[str, Any] = bundled_json("data/ray_serve_llm.json")
    return data


def is_serve_config(head: bytes) -> bool:
    """A serve config with an ``llm_configs`` application, or a standalone ``LLMConfig`` file."""
    text = head.decode("utf-8", "replace")
    if re.search(r"(?m)^applications:\s*(#.*)?$", text):
        return "llm_configs" in text or "ray.serve.llm" in text
    return bool(re.search(r"(?m)^model_loading_config:\s*(#.*)?$", text)) and bool(
        re.search(r"(?m)^(engine_kwargs|deployment_config|accelerator_type|runtime_env):", text)
    )


def _keys(node: Any) -> list[tuple[str, Any]]:
    """A mapping's keys with their own nodes (a finding about a key points at the key's line)."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return []
    return [(str(k.value), k) for k, _v in node.value if isinstance(k, yaml.ScalarNode)]


def _at(label: str, node: Any) -> str:
    return f"{label}:{node.start_mark.line + 1}" if node is not None else label


def _source(key: str) -> str:
    where = str(table()["sources"][key])
    path, _, line = where.partition(":")
    return f"{RAY_SOURCE.format(release=table()['ray']['release'], path=path)}#L{line}"


def _value(node: Any) -> Any:
    """A YAML node as the Python value Ray's pydantic model receives (safe-loader types)."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        return {str(k.value): _value(v) for k, v in node.value if isinstance(k, yaml.ScalarNode)}
    if isinstance(node, yaml.SequenceNode):
        return [_value(v) for v in node.value]
    text = str(node.value)
    tag = node.tag
    try:
        if tag.endswith(":int"):
            return int(text.replace("_", ""), 0)
        if tag.endswith(":float"):
            return float(text.replace("_", ""))
    except ValueError:
        return text
    if tag.endswith(":bool"):
        return text.lower() in ("true", "yes", "on", "y")
    if tag.endswith(":null"):
        return None
    return text


def analyze_serve_config(label: str, data: bytes) -> TransportResult:
    """The vLLM servers of a serve config file (or of one standalone ``LLMConfig`` file)."""
    result = TransportResult()
    nodes = _load_yaml_nodes(data, label).nodes
    root = nodes[0] if nodes else None
    if _get(root, "applications") is None and _get(root, "model_loading_config") is not None:
        _llm_config(label, root, f"{label}: LLMConfig", result)
    else:
        serve_applications(label, root, result)
    return result


def serve_config_v2(label: str, doc: Any, result: TransportResult) -> None:
    """A KubeRay RayService's ``spec.serveConfigV2``: a YAML text inside the manifest, read with the
    manifest's line numbers (the text's first line is the line after ``serveConfigV2: |``)."""
    from argtrace.model import UsageError

    node = _get(_get(doc, "spec"), "serveConfigV2")
    text = _scalar(node)
    if node is None or text is None:
        return
    shift = node.start_mark.line + (1 if getattr(node, "style", None) in ("|", ">") else 0)
    try:
        nodes = _load_yaml_nodes(("\n" * shift + text).encode(), label).nodes
    except UsageError as exc:
        result.findings.append(
            _not_followed(
                f"RayService `serveConfigV2` is not YAML argtrace can read: {exc}", _at(label, node)
            )
        )
        return
    before, hops_before = len(result.servers), len(result.hops)
    serve_applications(label, nodes[0] if nodes else None, result)
    image = _replica_image(doc)
    if image:
        # the replicas run in the cluster's Ray image; a ray-llm tag names the vLLM Ray pins (ray_llm.py)
        result.servers[before:] = [replace(s, image=image) for s in result.servers[before:]]
        for hop in result.hops[hops_before:]:
            hop["image"] = image


def _replica_image(doc: Any) -> str | None:
    """The image Serve's replicas run in: the first worker group's first container, else the head's (a
    cluster with GPUs only on its workers places the LLM replicas there)."""
    cluster = _get(_get(doc, "spec"), "rayClusterConfig")
    groups = [*(_seq(_get(cluster, "workerGroupSpecs")) or []), _get(cluster, "headGroupSpec")]
    for group in groups:
        containers = _seq(_get(_get(_get(group, "template"), "spec"), "containers")) or []
        image = _scalar(_get(containers[0], "image")) if containers else None
        if image:
            return image
    return None


def _not_followed(message: str, at: str) -> Any:
    from argtrace.rules.rayserve import TP082

    return TP082.finding(message, at=at, evidence=[Evidence("transport", at, message)])


def serve_applications(label: str, root: Any, result: TransportResult) -> None:
    from argtrace.rules.rayserve import TP081

    for app in _seq(_get(root, "applications")) or []:
        name = _scalar(_get(app, "name")) or "default"
        import_path = _scalar(_get(app, "import_path")) or ""
        args = _get(app, "args")
        configs = _seq(_get(args, "llm_configs"))
        if import_path != BUILDER:
            if configs is not None or import_path.startswith("ray.serve.llm:"):
                result.findings.append(
                    _not_followed(
                        f"application {name} is built by {import_path or 'no import_path'}: argtrace reads "
                        f"the llm_configs of {BUILDER} only, so its servers are not checked",
                        _at(label, _get(app, "import_path") or app),
                    )
                )
            continue
        allowed = [str(k) for k in table()["serving_args_keys"]]
        for key, node in _keys(args):
            if key not in allowed:
                result.findings.append(
                    _unknown_key(
                        TP081, label, f"application {name}'s `args`", key, node, allowed, "LLMServingArgs"
                    )
                )
        for index, item in enumerate(configs or []):
            where = f"application {name} llm_configs[{index}]"
            path = _scalar(item)
            if path is not None:
                _llm_config_file(label, path, item, where, result)
            else:
                _llm_config(label, item, where, result)


def _llm_config_file(label: str, path: str, node: Any, where: str, result: TransportResult) -> None:
    """An ``llm_configs`` entry given as a path: Ray reads it where the application is built (its working
    directory); argtrace reads it next to the config, when it is there."""
    from argtrace.model import UsageError

    here = posixpath.dirname(label)
    target = path if posixpath.isabs(path) or not here else posixpath.join(here, path)
    try:
        # a FIFO hung the run, /dev/zero filled memory (probe of session 15): regular files only, bounded
        data = read_regular(target, MAX_LLM_CONFIG_BYTES)
        nodes = _load_yaml_nodes(data, target).nodes
    except (OSError, UsageError):
        result.findings.append(
            _not_followed(
                f"{where} is the file {path}, which Ray reads where the application is built; it is not "
                f"readable here ({target}), so that server is not checked",
                _at(label, node),
            )
        )
        return
    _llm_config(target, nodes[0] if nodes else None, where, result)


def _unknown_key(
    rule: Any, label: str, where: str, key: str, node: Any, allowed: list[str], model: str
) -> Any:
    near = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    hint = f" (did you mean `{near[0]}`?)" if near else f"; it has {', '.join(f'`{k}`' for k in allowed)}"
    at = _at(label, node)
    return rule.finding(
        f"`{key}` in {where} is no field of Ray's {model}{hint}: Ray refuses the config (`Extra inputs are "
        "not "
        f"permitted`, ray {table()['ray']['release']}), and what is under it reaches nothing",
        at=at,
        evidence=[Evidence("transport", at, key)],
    )


def _llm_config(label: str, node: Any, where: str, result: TransportResult) -> None:
    from argtrace.rules.rayserve import TP081

    keys = [str(k) for k in table()["llm_config_keys"]]
    for key, value in _keys(node):
        if key not in keys:
            # ray-project/ray#55406: engine settings one level too high or too low
            result.findings.append(_unknown_key(TP081, label, where, key, value, keys, "LLMConfig"))
    loading = _get(node, "model_loading_config")
    loading_keys = [str(k) for k in table()["model_loading_config_keys"]]
    for key, value in _keys(loading):
        if key not in loading_keys:
            result.findings.append(
                _unknown_key(
                    TP081,
                    label,
                    f"{where}'s model_loading_config",
                    key,
                    value,
                    loading_keys,
                    "ModelLoadingConfig",
                )
            )
    model_id = _scalar(_get(loading, "model_id"))
    source_node = _get(loading, "model_source")
    model_source = _scalar(source_node)
    at = _at(label, node)
    server_cls = _scalar(_get(node, "server_cls"))
    engine = _scalar(_get(node, "llm_engine")) or "vLLM"
    if server_cls or engine != "vLLM":
        shown = f"server_cls {server_cls}" if server_cls else f"llm_engine {engine}"
        result.findings.append(
            _not_followed(
                f"{where} runs {shown}, not Ray's vLLM engine: its engine_kwargs are not checked", at
            )
        )
        return
    if model_id is None:
        # ModelLoadingConfig.model_id and LLMConfig.model_loading_config have no default: pydantic refuses
        missing = "model_loading_config" if loading is None else "model_loading_config.model_id"
        result.findings.append(
            TP081.finding(
                f"{where} has no `{missing}`, which Ray's LLMConfig requires: Ray refuses the config "
                f"(`Field required`, ray {table()['ray']['release']}), so no server starts",
                at=at,
                evidence=[Evidence("transport", at, missing)],
            )
        )
        return
    if source_node is not None and model_source is None:
        result.findings.append(
            _not_followed(f"{where}'s model_source is a cloud mirror: the weights' local path is Ray's", at)
        )
    model = model_source if model_source is not None else model_id
    model_at = _at(label, source_node if model_source is not None else _get(loading, "model_id"))
    words: list[Word] = [
        Word("vllm", Origin(at=at, expansion="ray serve llm")),
        Word("serve", Origin(at=at, expansion="ray serve llm")),
        Word(model, Origin(at=model_at, expansion="ray serve llm")),
        Word("--served-model-name", Origin(at=model_at, expansion="ray serve llm")),
        Word(model_id, Origin(at=_at(label, _get(loading, "model_id")), expansion="ray serve llm")),
    ]
    kwargs = _get(node, "engine_kwargs")
    has_backend = False
    for key, value in _items(kwargs):
        has_backend |= key == "distributed_executor_backend"
        for text, word_at in _engine_words(label, where, key, value, result):
            words.append(Word(text, Origin(at=word_at, expansion="ray serve llm")))
    if not has_backend:
        # get_initialization_kwargs: Ray's own value on GPUs (the CPU-only `mp` case is not told apart here)
        words += [
            Word(w, Origin(at=at, expansion="ray serve llm"))
            for w in ("--distributed-executor-backend", "ray")
        ]
    # the replica is a Ray worker that imports vLLM: nothing is looked up on a PATH, which is the worker's
    env: dict[str, EnvValue] = {
        "PATH": EnvValue(
            None,
            Origin(
                at=at,
                expansion="ray worker",
                known=False,
                reason="the Ray worker's environment, not read here",
            ),
        )
    }
    env_vars = _get(_get(node, "runtime_env"), "env_vars")
    for key, value in _items(env_vars):
        set_to = _scalar(value)
        env[key] = EnvValue(
            set_to, Origin(at=_at(label, value), expansion="ray runtime_env", known=set_to is not None)
        )
    result.hops.append(
        {
            "at": at,
            "via": "ray serve llm",
            "llm_config": where,
            "model_id": model_id,
            "argv": [w.text for w in words],
            "env": sorted(env),
        }
    )
    result.servers.append(
        ServerCommand(
            at=at,
            framework="vllm",
            argv=tuple(words),
            env=env,
            server_args_start=2,
            entrypoint="vllm serve",
        )
    )


@functools.cache
def _schema() -> Any:
    from argtrace.frameworks.schema import bundled_versions, load_schema

    versions = bundled_versions("vllm", include_user=False)
    return load_schema("vllm", versions[-1]) if versions else None


def _fields() -> tuple[set[str], set[str]]:
    """(keys vLLM takes only as keywords, command-line dests that are no field), from the newest release
    whose classes were read (gen_ray_serve_llm.py)."""
    found: Mapping[str, Any] = table()["vllm_fields"]
    if not found:
        return set(), set()
    newest = found[max(found, key=lambda v: tuple(int(p) for p in re.findall(r"\d+", v)))]
    return set(newest["without_flag"]), set(newest["flags_not_fields"])


def _engine_words(
    label: str, where: str, key: str, node: Any, result: TransportResult
) -> list[tuple[str, str]]:
    """The ``vllm serve`` words of one ``engine_kwargs`` entry, each with where it was written; TP080 when Ray
    refuses the key."""
    from argtrace.rules.rayserve import TP080

    at = _at(label, node)
    value = _value(node)
    without_flag, not_fields = _fields()
    refused = None
    if key in ("model", "served_model_name"):
        refused = (
            f"`{key}` in {where}'s engine_kwargs: Ray Serve LLM refuses it (`model or served_model_name is "
            "not allowed in engine_kwargs when using Ray Serve LLM. Please use `model_loading_config` in "
            "LLMConfig "
            "instead.`) and sets both from model_loading_config",
            "model_in_engine_kwargs",
        )
    elif key == "distributed_executor_backend" and value != "ray":
        refused = (
            f"`distributed_executor_backend: {value}` in {where}'s engine_kwargs: Ray Serve LLM runs vLLM's "
            "workers as Ray actors and refuses another backend on GPUs (`distributed_executor_backend != "
            "'ray' "
            "is not allowed in engine_kwargs when using Ray Serve LLM Configs.`)",
            "executor_backend",
        )
    elif key in not_fields:
        refused = (
            f"`{key}` in {where}'s engine_kwargs is a `vllm serve` command-line option but no field of "
            "vLLM's "
            f"FrontendArgs or AsyncEngineArgs: Ray Serve LLM refuses it (`Unknown engine argument: {key}`)",
            "unknown_engine_argument",
        )
    if refused is not None:
        message, source = refused
        result.findings.append(
            TP080.finding(message, at=at, evidence=[Evidence("transport", at, _source(source))])
        )
        return []
    if key in without_flag:
        result.findings.append(
            _not_followed(
                f"`{key}` in {where}'s engine_kwargs is a field of vLLM's AsyncEngineArgs with no "
                "`vllm serve` "
                "flag: Ray passes it on, argtrace does not check its value",
                at,
            )
        )
        return []
    if value is None:
        return []  # the field's default, as with no key
    schema = _schema()
    specs = schema.options_for_dest(key) if schema is not None else []
    spec = next((s for s in specs if s.option_strings), None)
    names = [s for s in (spec.option_strings if spec is not None else ()) if s.startswith("--")]
    flag = names[0] if names else "--" + key.replace("_", "-")
    switch = spec is not None and (
        spec.action == "store_true"
        or spec.raw.get("behaves_like") in ("BooleanOptionalAction", "store_true")
        or spec.action == "BooleanOptionalAction"
    )
    if isinstance(value, bool) and (switch or spec is None):
        # no flag in the newest release (an older one's switch): the switch's spelling, the parser decides
        if value:
            return [(flag, at)]
        return [(negative, at)] if (negative := _negative(flag, spec, names)) else []
    if isinstance(value, (dict, list)) and not (isinstance(value, list) and spec is not None and spec.nargs):
        return [(flag, at), (json.dumps(value), at)]
    if isinstance(value, list):
        return [(flag, at), *((json.dumps(v) if isinstance(v, (dict, list)) else str(v), at) for v in value)]
    text = _scalar(node)
    return [(flag, at), (text if text is not None else str(value), at)]


def _negative(flag: str, spec: Any, names: list[str]) -> str | None:
    """The spelling of a switch's ``False``: ``--no-FLAG`` where the release takes it (every release with a
    ``BooleanOptionalAction`` does; vLLM 0.33.0's ``EnableDisableAction`` lists it among its negatives beside
    ``--disable-...``), else the other visible spelling; None for a ``store_true`` flag or a key with no
    flag in the newest release (the default either way)."""
    if spec is None:
        return None  # no flag in the newest release: an older switch's default, as with no key
    plain = "--no-" + flag[2:]
    negatives = str((spec.raw.get("action_attrs") or {}).get("negative_option_strings") or "")
    if plain in names or plain in negatives:
        return plain
    if spec.action == "store_true":
        return None
    return names[1] if len(names) > 1 else None
