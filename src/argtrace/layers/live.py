"""The live layer: what a running SGLang or vLLM server reports about its own configuration.

Endpoints read through the host's collector (``remote/collector.py`` ``http_get``: standard library,
one deadline per request, a 16 MiB body cap, credentials only to the origin given; never a traceback):

- SGLang ``/server_info`` (falling back to the deprecated ``/get_server_info``): every ``ServerArgs`` field
  at top level (the tokenizer manager's copy), the scheduler's handshake (``status``,
  ``max_total_num_tokens``, ``max_req_input_len``), ``version``, and ``internal_states``: one dict per DP
  rank, the *scheduler's* copy of the arguments plus ``memory_usage`` and
  ``effective_max_running_requests_per_dp``. In 0.5.10 the model runner rewrites some fields (attention
  backend, CUDA graph, chunked prefill, KV dtype) in the scheduler process only, so a rank can differ from
  the top level. 0.5.23 adds ``launch_command`` (the argv as one string).
- vLLM ``/server_info?config_format=json`` (only with ``VLLM_SERVER_DEV_MODE=1``), ``/version``,
  ``/v1/models`` (``max_model_len``) and the ``vllm:cache_config_info`` metric on ``/metrics``.

Every value copied into the report goes through :mod:`argtrace.redact` (``api_key`` is a top-level field
of SGLang's ``/server_info``). The API key used to authenticate is never printed.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re
import socket
import ssl
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from argtrace import safe_json
from argtrace.model import Evidence, Finding, LayerResult, Observation, UsageError
from argtrace.redact import mask, redact_payload, redact_text, remember, run_redactor, secret_values

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_TIMEOUT = 5.0
MAX_BODY = 16 * 1024 * 1024
MAX_JSON_DEPTH = 64  # /server_info is about 4 levels deep; vllm_config about 6
USER_AGENT = "argtrace-live/1"

# Fields of an SGLang rank's internal state that are measurements, not configuration.
_VOLATILE = frozenset(
    {
        "last_gen_throughput",
        "memory_usage",
        "effective_max_running_requests_per_dp",
        "avg_spec_accept_length",
        "step_time_dict",
        "startup_time",
        "world_size",
        "env_vars",
        "is_scaling_elastic_ep",
        "effective_ep_size",
        "pending_ep_size",
        "scale_phase",
        "elastic_ep_last_error",
        "dspark_info_record",
        "rust_mm_transport",
        "rust_server_startup_time",
        "disaggregation_mode",
        "decode_cuda_graph_bs",
        "decode_cuda_graph_memory_gb",
        "status",
        "max_total_num_tokens",
        "max_req_input_len",
        "internal_states",
        "version",
        "kv_events",
        "launch_command",
        "frontend",
        "hicache_object_layout",
    }
)
# Settings shown by ``argtrace live`` even when nothing differs: the ones that decide capacity.
KEY_SETTINGS = (
    "model_path",
    "served_model_name",
    "tp_size",
    "dp_size",
    "pp_size",
    "max_running_requests",
    "chunked_prefill_size",
    "mem_fraction_static",
    "context_length",
    "max_total_tokens",
    "attention_backend",
    "kv_cache_dtype",
    "disable_cuda_graph",
    "speculative_algorithm",
    "mamba_scheduler_strategy",
    "mamba_radix_cache_strategy",
    # vLLM
    "model",
    "max_model_len",
    "max_num_seqs",
    "max_num_batched_tokens",
    "gpu_memory_utilization",
    "block_size",
    "tensor_parallel_size",
    "data_parallel_size",
    "enable_prefix_caching",
    "mamba_cache_mode",
)
# vLLM engine-argument names whose config field is named differently.
_VLLM_ALIASES = {"kv_cache_dtype": "cache_dtype"}


@dataclass
class HttpResult:
    """One GET: its status and parsed body, or why there is none."""

    path: str
    status: int | None = None
    content_type: str | None = None
    body: bytes = b""
    error: str | None = None  # "refused", "timeout", "dns", "tls", "protocol", "other"
    detail: str | None = None
    json: Any = None
    json_problem: str | None = None  # why a body that may be JSON was not read (too deep, too large)
    truncated: bool = False
    redirects: list[str] = field(default_factory=list)  # the URLs followed, in order
    credentials_dropped: bool = False  # a redirect left the origin given: the API key was not sent there

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def is_json(self) -> bool:
        return self.json is not None

    @property
    def looks_html(self) -> bool:
        head = self.body[:512].lstrip().lower()
        return (
            head.startswith((b"<!doctype", b"<html"))
            or b"<html" in head
            or (self.content_type is not None and "html" in self.content_type)
        )

    def summary(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "error": self.error,
            "content_type": self.content_type,
            "redirected_to": display_url(self.redirects[-1]) if self.redirects else None,
            "credentials_dropped": self.credentials_dropped,
        }


@dataclass
class LiveSnapshot:
    """What the server reported, raw (not yet redacted); ``url`` is already safe to print."""

    url: str
    framework: str | None = None
    version: str | None = None
    server_info: dict[str, Any] | None = None
    server_info_path: str | None = None
    vllm_flat: dict[str, tuple[Any, str]] = field(default_factory=dict)  # name -> (value, json pointer)
    models: dict[str, Any] | None = None
    cache_config_info: dict[str, str] | None = None
    results: list[HttpResult] = field(default_factory=list)
    failure: HttpResult | None = None  # the connection-level failure that stopped everything
    unauthorized: list[HttpResult] = field(default_factory=list)
    bad: list[HttpResult] = field(default_factory=list)  # HTML pages, non-JSON bodies, 5xx


def normalise_url(url: str) -> str:
    """``host:port`` -> ``http://host:port``; trailing ``/`` and an OpenAI-style ``/v1`` base removed.

    :class:`UsageError` for text that is no URL (``http://[::1/``, ``http://[zz]:80``, a port out of range,
    no host): nothing can be asked of such a server, so the command stops with exit status 2."""
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018  (ValueError for a port that is not a number in 0-65535)
        host = parts.hostname
        if host is not None and parts.netloc.rsplit("@", 1)[-1].startswith("["):
            ipaddress.ip_address(host.split("%", 1)[0])  # "[zz]": brackets hold an IPv6 address or nothing
    except ValueError as exc:
        raise UsageError(f"{display_url(url)}: not a valid URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise UsageError(f"{display_url(url)}: not an http:// or https:// URL")
    if not host:
        raise UsageError(f"{display_url(url)}: not a valid URL (no host)")
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def display_url(url: str) -> str:
    """The URL as it may be printed: a password in ``user:password@`` masked."""
    return redact_text(url)


def _split_auth(url: str) -> tuple[str, tuple[str, str] | None]:
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    netloc = parts.netloc.rsplit("@", 1)[-1]
    clean = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return clean, (urllib.parse.unquote(parts.username or ""), urllib.parse.unquote(parts.password or ""))


def parse_json_body(body: bytes) -> tuple[Any, str | None]:
    """The JSON value of ``body``, or ``(None, why)``; never raises, whatever a server sends.

    A body nested deeper than :data:`MAX_JSON_DEPTH` is refused: deeper than about 1,000 levels the json
    module itself raises ``RecursionError``, and anything walking the value recursively later would too."""
    try:
        value = json.loads(body.decode("utf-8"))
    except RecursionError:
        return None, f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
    except (UnicodeDecodeError, ValueError):
        return None, None
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:  # iterative: the check itself must not recurse
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                return None, f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return value, None


def http_get(base: str, path: str, *, api_key: str | None, insecure: bool, timeout: float) -> HttpResult:
    """GET ``base + path`` through the host's collector (``Host.http_get``, local or ``--host``): one
    deadline for the whole request, at most :data:`MAX_BODY` bytes, credentials only to ``base``'s origin.
    Every failure becomes an ``HttpResult`` with ``error`` set, never an exception."""
    from argtrace.remote.host import HostError, current_host
    from argtrace.remote.ssh import TransportError

    result = HttpResult(path=path)
    clean, basic = _split_auth(base)
    headers = {"Accept": "application/json, text/plain", "User-Agent": USER_AGENT}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    elif basic is not None:
        token = base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode()
        headers["Authorization"] = f"Basic {token}"
    try:
        response = current_host().http_get(clean + path, headers=headers, insecure=insecure, timeout=timeout)
    except TransportError:
        raise
    except HostError as exc:  # a URL the collector refuses (not http/https, no host)
        result.error, result.detail = "other", str(exc)
        return result
    result.redirects = list(response.redirects)
    result.credentials_dropped = response.credentials_dropped
    if response.status is None:
        kind, _ = _classify(response.detail or "")
        result.error = kind if kind != "other" else (response.error or "other")
        result.detail = response.detail or response.error
        return result
    result.status = response.status
    result.content_type = next((v for k, v in response.headers.items() if k.lower() == "content-type"), None)
    result.body = response.body[:MAX_BODY]
    result.truncated = response.truncated
    if result.truncated:
        result.json_problem = f"the body is larger than {MAX_BODY >> 20} MiB; not read further"
    elif result.body:
        result.json, result.json_problem = parse_json_body(result.body)
    return result


def _classify(reason: object) -> tuple[str, str]:
    text = str(reason)
    if "WRONG_VERSION_NUMBER" in text or "wrong version number" in text or "record layer failure" in text:
        return "not-https", text
    if isinstance(reason, ssl.SSLError) or "CERTIFICATE_VERIFY_FAILED" in text or "SSL" in text:
        return "tls", text
    if isinstance(reason, ConnectionRefusedError) or "Connection refused" in text:
        return "refused", text
    if isinstance(reason, (TimeoutError, socket.timeout)) or "timed out" in text:
        return "timeout", text
    if isinstance(reason, socket.gaierror) or any(
        t in text for t in ("Name or service not known", "name resolution", "nodename nor servname")
    ):
        return "dns", text
    if isinstance(reason, (ConnectionResetError, ConnectionAbortedError)) or "RemoteDisconnected" in repr(
        reason
    ):
        return "protocol", text or type(reason).__name__
    return "other", f"{type(reason).__name__}: {text}"


_METRIC_LINE = re.compile(r"^vllm:cache_config_info\{(?P<labels>.*)\}\s+\S+\s*$")
_LABEL = re.compile(r'(?P<key>[A-Za-z_][A-Za-z0-9_]*)="(?P<value>(?:[^"\\]|\\.)*)"')


def parse_cache_config_info(text: str) -> dict[str, str] | None:
    """The labels of the first ``vllm:cache_config_info{...} 1.0`` sample in Prometheus text format."""
    for line in text.splitlines():
        m = _METRIC_LINE.match(line.strip())
        if not m:
            continue
        labels = {}
        for lm in _LABEL.finditer(m["labels"]):
            value = lm["value"].replace(r"\"", '"').replace(r"\n", "\n").replace("\\\\", "\\")
            labels[lm["key"]] = value
        return labels
    return None


def _flatten_vllm(config: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    """``vllm_config`` flattened: ``max_num_seqs`` -> (value, ``/vllm_config/scheduler_config/...``)."""
    flat: dict[str, tuple[Any, str]] = {}
    # Where an engine argument lives when several sub-configs have a field of that name (the draft model's
    # speculative_config repeats many): the engine's own configs first.
    priority = ("cache_config", "scheduler_config", "parallel_config", "model_config", "load_config")
    ordered = sorted(
        config.items(), key=lambda kv: priority.index(kv[0]) if kv[0] in priority else len(priority)
    )
    for section, body in ordered:
        if isinstance(body, Mapping) and section.endswith("_config"):
            for key, value in body.items():
                flat.setdefault(key, (value, f"/vllm_config/{section}/{key}"))
        else:
            flat.setdefault(section, (body, f"/vllm_config/{section}"))
    for engine_name, config_name in _VLLM_ALIASES.items():
        if config_name in flat:
            flat[engine_name] = flat[config_name]
    return flat


def fetch_live(
    url: str, *, api_key: str | None = None, insecure: bool = False, timeout: float = DEFAULT_TIMEOUT
) -> LiveSnapshot:
    """Read the endpoints of the server at ``url``; identify its framework and version."""
    base = normalise_url(url)
    snap = LiveSnapshot(url=display_url(base))

    def get(path: str) -> HttpResult:
        r = http_get(base, path, api_key=api_key, insecure=insecure, timeout=timeout)
        snap.results.append(r)
        if r.error is None:
            if r.status in (401, 403):
                snap.unauthorized.append(r)
            elif r.status is not None and (
                r.status >= 500 or (r.ok and r.json is None and path != "/metrics") or r.json_problem
            ):
                snap.bad.append(r)
            elif r.status is not None and r.status != 404 and r.looks_html:
                snap.bad.append(r)
        return r

    first = get("/server_info?config_format=json")
    first.path = "/server_info"
    if first.error is not None:
        snap.failure = first
        return snap
    info = first.json if first.ok and isinstance(first.json, dict) else None
    if info is not None and "vllm_config" in info:
        snap.framework = "vllm"
        snap.server_info, snap.server_info_path = info, "/server_info"
        if isinstance(info["vllm_config"], Mapping):
            snap.vllm_flat = _flatten_vllm(info["vllm_config"])
    elif info is not None and _is_sglang_info(info):
        snap.framework = "sglang"
        snap.server_info, snap.server_info_path = info, "/server_info"
    elif first.status == 404 or (first.ok and info is None and not first.looks_html):
        old = get("/get_server_info")
        if old.ok and isinstance(old.json, dict) and _is_sglang_info(old.json):
            snap.framework = "sglang"
            snap.server_info, snap.server_info_path = old.json, "/get_server_info"
    if snap.server_info is not None and snap.framework == "sglang":
        version = snap.server_info.get("version")
        snap.version = str(version) if version is not None else None

    models = get("/v1/models")
    if models.ok and isinstance(models.json, dict) and isinstance(models.json.get("data"), list):
        snap.models = models.json
        owners = {card.get("owned_by") for card in models.json["data"] if isinstance(card, Mapping)}
        if snap.framework is None and owners & {"vllm", "sglang"}:
            snap.framework = "vllm" if "vllm" in owners else "sglang"

    if snap.framework in (None, "vllm"):
        version = get("/version")
        if version.ok and isinstance(version.json, dict) and "version" in version.json:
            snap.version = str(version.json["version"])
        metrics = get("/metrics")
        if metrics.ok and metrics.body:
            text = metrics.body.decode("utf-8", "replace")
            labels = parse_cache_config_info(text)
            if labels is not None:
                snap.cache_config_info = labels
                snap.framework = snap.framework or "vllm"
            elif snap.framework is None and re.search(r"(?m)^(?:# (?:HELP|TYPE) )?sglang:", text):
                # /metrics is open even when --api-key guards the rest (SGLang's utils/auth.py).
                snap.framework = "sglang"
    return snap


def _is_sglang_info(info: Mapping[str, Any]) -> bool:
    return "internal_states" in info or ("max_total_num_tokens" in info and "model_path" in info)


# --------------------------------------------------------------------------------------------- analysis


def _same(intended: Any, live: Any) -> bool:
    """Does the value the user wrote (a string, or the parser's typed value) equal the live one?"""
    if intended == live:
        return True
    if isinstance(live, bool):
        if intended in ("", None):  # a store_true flag given without a value
            return live is True
        return str(intended).strip().lower() in (("true", "1", "yes") if live else ("false", "0", "no"))
    if isinstance(intended, str):
        if live is None:
            return intended.strip().lower() in ("none", "null")
        if isinstance(live, (int, float)):
            try:
                return float(intended) == float(live)
            except ValueError:
                return False
        if isinstance(live, (list, dict)):
            try:
                return safe_json.loads(intended) == live
            except ValueError:
                return " ".join(map(str, live)) == intended if isinstance(live, list) else False
        return str(live) == intended
    if isinstance(intended, (int, float)) and isinstance(live, str):
        try:
            return float(live) == float(intended)
        except ValueError:
            return False
    if isinstance(intended, (list, tuple)) and isinstance(live, list):
        return [str(x) for x in intended] == [str(x) for x in live]
    return False


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if value == "" or value != value.strip() else value
    return json.dumps(value, default=str)


def launch_api_key(argv: Sequence[str | None]) -> str | None:
    """The value of ``--api-key`` in a server argv (``--api-key K`` or ``--api-key=K``), if any."""
    words = list(argv)
    for i, word in enumerate(words):
        if word is None:
            continue
        if word.startswith("--api-key="):
            return word.split("=", 1)[1] or None
        if word == "--api-key" and i + 1 < len(words):
            return words[i + 1]
    return None


def analyze_live(
    url: str,
    *,
    intended: Mapping[str, Any] | None = None,
    framework: str | None = None,
    version: str | None = None,
    api_key: str | None = None,
    launch_argv: Sequence[str | None] = (),
    insecure: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    show_secrets: bool = False,
    all_settings: bool = False,
    snapshot: LiveSnapshot | None = None,
) -> LayerResult:
    """Compare what the server at ``url`` reports with the intended settings.

    ``intended`` maps setting names (the framework's dest names) to the value the user meant (the string
    the shell produced or the parser's typed value); ``framework``/``version`` are what the static analysis
    assumed. ``api_key`` defaults to the ``--api-key`` in ``launch_argv`` (the launch's own key); it is
    sent as a bearer token and never printed. With ``show_secrets`` the payload is reported unmasked.
    """
    from argtrace.rules import live as rules

    key_source = "--api-key"
    if api_key is None:
        api_key = launch_api_key(launch_argv)
        key_source = "the launch's own --api-key"
    snap = snapshot or fetch_live(url, api_key=api_key, insecure=insecure, timeout=timeout)
    secrets = set(secret_values({}, launch_argv))
    if api_key:
        secrets.add(api_key)
    # Every value a payload names secret (top-level admin_api_key, tokens inside launch_command, ...) is
    # masked wherever else this run prints it.
    for payload in (snap.server_info, snap.models, snap.cache_config_info):
        run_redactor().learn_data(payload)
    run_redactor().learn_data({k: v for k, (v, _) in snap.vllm_flat.items()})
    remember(*secrets)
    secrets |= run_redactor().known

    def safe(value: Any) -> Any:
        return value if show_secrets else redact_payload(value, secrets)

    def safe_text(text: str) -> str:
        return text if show_secrets else str(redact_payload(text, secrets))

    result = LayerResult()
    endpoints = [r.summary() for r in snap.results]
    section: dict[str, Any] = {
        "url": snap.url,
        "framework": snap.framework,
        "version": snap.version,
        "server_info_path": snap.server_info_path,
        "endpoints": endpoints,
        "authenticated": bool(api_key),
    }
    result.sections["live"] = section
    at_base = snap.url

    if snap.failure is not None:
        f = snap.failure
        if f.error == "tls":
            result.findings.append(
                rules.LV009.finding(
                    f"{snap.url}: TLS verification failed ({safe_text(f.detail or '')})", at=at_base
                )
            )
        else:
            what = {
                "refused": "connection refused (nothing listens on that port, or the server is still "
                "loading the model)",
                "timeout": f"timed out: no complete answer within {timeout:g} s",
                "dns": "the host name does not resolve",
                "protocol": "the connection was closed without an HTTP answer (HTTPS port spoken to "
                "over HTTP?)",
                "not-https": "the server does not speak HTTPS there (use http://)",
            }.get(f.error or "", f.detail or "unknown error")
            result.findings.append(
                rules.LV001.finding(
                    f"{snap.url}: {what}",
                    at=at_base,
                    evidence=[Evidence("live", at_base, safe_text(f.detail or ""))],
                )
            )
        return result

    for r in snap.unauthorized:
        if api_key:
            message = (
                f"{snap.url}{r.path}: HTTP {r.status}: the server rejected the API key "
                f"({key_source}, {mask(api_key) if not show_secrets else api_key})"
            )
        else:
            message = f"{snap.url}{r.path}: HTTP {r.status}: the server requires an API key"
        if r.credentials_dropped and r.redirects:
            message += (
                f" (after a redirect to {display_url(r.redirects[-1])}, another origin: credentials are sent "
                "only to the origin given, so it got none)"
            )
        result.findings.append(rules.LV004.finding(message, at=f"{at_base}{r.path}"))
        break
    for r in snap.bad:
        snippet = r.body[:200].decode("utf-8", "replace").strip().replace("\n", " ")
        if r.json_problem:
            why = f"the answer was not read: {r.json_problem} (HTTP {r.status})"
        elif r.looks_html:
            why = (
                f"expected JSON from the server, got an HTML page (HTTP {r.status}): a proxy, a load "
                "balancer or another service answers on this port?"
            )
        elif r.status is not None and r.status >= 500:
            why = f"the server failed to answer (HTTP {r.status}); it may still be starting or be overloaded"
        else:
            why = "expected JSON from the server, got a non-JSON body: another service answers on this port?"
        result.findings.append(
            rules.LV003.finding(
                f"{snap.url}{r.path}: {why}",
                at=f"{at_base}{r.path}",
                evidence=[Evidence("live", f"{at_base}{r.path}", safe_text(snippet))],
            )
        )

    if snap.framework is None:
        if not snap.unauthorized and not snap.bad:
            result.findings.append(
                rules.LV003.finding(
                    f"{snap.url}: answers HTTP, but none of /server_info, /get_server_info, /v1/models, "
                    "/version, "
                    "/metrics identifies an SGLang or vLLM server",
                    at=at_base,
                )
            )
        return result
    if framework is not None and framework != snap.framework:
        result.findings.append(
            rules.LV002.finding(
                f"{snap.url} is a {snap.framework} server, but the launch starts {framework}: "
                "this is not the "
                "server you meant to inspect (wrong port?)",
                at=at_base,
            )
        )
        return result
    if version is not None and snap.version is not None and version != snap.version:
        result.findings.append(
            rules.LV011.finding(
                f"the running server is {snap.framework} {snap.version}; "
                f"the static analysis assumed {version}",
                at=f"{at_base}{snap.server_info_path or '/version'}#/version",
            )
        )
    if snap.server_info_path == "/get_server_info":
        result.findings.append(
            rules.LV010.finding(
                f"{snap.url}/server_info is missing; read the deprecated /get_server_info instead",
                at=f"{at_base}/get_server_info",
            )
        )
    if snap.framework == "vllm" and snap.server_info is None:
        result.findings.append(
            rules.LV010.finding(
                f"{snap.url}/server_info is not served (vLLM serves it only with VLLM_SERVER_DEV_MODE=1): "
                "only /v1/models, /version and the vllm:cache_config_info metric were compared",
                at=f"{at_base}/server_info",
            )
        )

    top, where = _live_values(snap)
    section["top_level"] = {k: safe(v) for k, (v, _) in sorted(top.items())} if all_settings else None
    wanted = dict(intended or {})
    names = list(wanted)
    for name in KEY_SETTINGS:
        if name in top and name not in wanted:
            names.append(name)

    def observe(name: str, obs: Observation) -> None:
        flag = "--" + name.replace("_", "-")
        result.observations.setdefault(name, (flag, []))[1].append(obs)

    for name in names:
        if name not in top:
            continue
        value, pointer = top[name]
        observe(
            name, Observation("live", safe(value), at=f"{at_base}{where[name]}#{pointer}", by=where[name])
        )
        if name in wanted and not _same(wanted[name], value):
            result.findings.append(
                rules.LV005.finding(
                    f"{name}: intended {_show(safe(wanted[name]))}, the running server reports "
                    f"{_show(safe(value))}",
                    at=f"{at_base}{where[name]}#{pointer}",
                    setting=name,
                    evidence=[
                        Evidence("live", f"{at_base}{where[name]}#{pointer}", f"{name}: {_show(safe(value))}")
                    ],
                )
            )

    ranks = _ranks(snap)
    section["ranks"] = len(ranks)
    rank_diffs: dict[str, list[Any]] = {}
    if snap.server_info is not None:
        differing: dict[str, list[int]] = {}
        for i, state in enumerate(ranks):
            for name in sorted(state):
                if name in _VOLATILE or name not in snap.server_info:
                    continue
                if snap.server_info[name] != state[name]:
                    differing.setdefault(name, []).append(i)
        path = snap.server_info_path
        for name, rank_ids in differing.items():
            top_value = snap.server_info[name]
            if name not in names:
                names.append(name)
                observe(name, Observation("live", safe(top_value), at=f"{at_base}{path}#/{name}", by=path))
            evidence = [Evidence("live", f"{at_base}{path}#/{name}", f"{name}: {_show(safe(top_value))}")]
            wrong = False
            for i in rank_ids:
                rank_value = ranks[i][name]
                at = f"{at_base}{path}#/internal_states/{i}/{name}"
                observe(
                    name,
                    Observation(
                        "live", safe(rank_value), at=at, by=f"internal_states[{i}]", detail={"rank": i}
                    ),
                )
                rank_diffs.setdefault(name, [None] * len(ranks))[i] = safe(rank_value)
                evidence.append(Evidence("live", at, f"{name}: {_show(safe(rank_value))}"))
                wrong = wrong or (name in wanted and not _same(wanted[name], rank_value))
            values = sorted({_show(safe(ranks[i][name])) for i in rank_ids})
            which = (
                "every DP rank"
                if len(rank_ids) == len(ranks)
                else "DP rank(s) " + ", ".join(map(str, rank_ids))
            )
            result.findings.append(
                rules.LV006.finding(
                    f"{name}: the top level of {path} says {_show(safe(top_value))}, "
                    f"but the scheduler of {which} "
                    f"runs with {' / '.join(values)}",
                    at=f"{at_base}{path}#/internal_states/{rank_ids[0]}/{name}",
                    setting=name,
                    severity="error" if wrong else None,
                    evidence=evidence,
                )
            )
    section["rank_differences"] = rank_diffs

    capacity = _capacity(snap, ranks)
    section["capacity"] = capacity
    if capacity:
        result.findings.extend(_capacity_findings(capacity, wanted, snap, at_base, rules))
    for name, value in wanted.items():
        if name in top:
            result.intended[name] = safe(value)
    return result


def _live_values(snap: LiveSnapshot) -> tuple[dict[str, tuple[Any, str]], dict[str, str]]:
    """Every configuration value the server reported at top level: name -> (value, json pointer), and the
    endpoint each came from."""
    values: dict[str, tuple[Any, str]] = {}
    where: dict[str, str] = {}
    if snap.framework == "sglang" and snap.server_info is not None:
        for name, value in snap.server_info.items():
            if name in ("internal_states",):
                continue
            values[name] = (value, f"/{name}")
            where[name] = snap.server_info_path or "/server_info"
        return values, where
    for name, (value, pointer) in snap.vllm_flat.items():
        values[name] = (value, pointer)
        where[name] = "/server_info"
    for name, value in (snap.cache_config_info or {}).items():
        if name == "engine":
            continue
        names = [name] + [e for e, c in _VLLM_ALIASES.items() if c == name]
        for n in names:
            if n not in values:
                values[n] = (_metric_value(value), f"/vllm:cache_config_info/{name}")
                where[n] = "/metrics"
    if snap.models and snap.models.get("data"):
        card = snap.models["data"][0]
        if isinstance(card, Mapping):
            if "max_model_len" in card and "max_model_len" not in values:
                values["max_model_len"] = (card["max_model_len"], "/data/0/max_model_len")
                where["max_model_len"] = "/v1/models"
            if "served_model_name" not in values and "id" in card:
                values["served_model_name"] = (card["id"], "/data/0/id")
                where["served_model_name"] = "/v1/models"
    return values, where


def _metric_value(text: str) -> Any:
    """Prometheus info labels are ``str(value)``: turn ``'16'``, ``'0.9'``, ``'True'``, ``'None'`` back."""
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _ranks(snap: LiveSnapshot) -> list[dict[str, Any]]:
    if snap.framework != "sglang" or snap.server_info is None:
        return []
    states = snap.server_info.get("internal_states")
    if not isinstance(states, list):
        return []
    return [s for s in states if isinstance(s, dict)]


def _capacity(snap: LiveSnapshot, ranks: list[dict[str, Any]]) -> dict[str, Any]:
    if snap.framework == "sglang" and snap.server_info is not None:
        info = snap.server_info
        per_rank = []
        for state in ranks:
            usage = state.get("memory_usage") if isinstance(state.get("memory_usage"), Mapping) else {}
            per_rank.append(
                {
                    "effective_max_running_requests": state.get("effective_max_running_requests_per_dp"),
                    "token_capacity": usage.get("token_capacity") if usage else None,
                    "kvcache_gb": usage.get("kvcache") if usage else None,
                    "weight_gb": usage.get("weight") if usage else None,
                }
            )
        return {
            "max_total_num_tokens": info.get("max_total_num_tokens"),
            "max_req_input_len": info.get("max_req_input_len"),
            "max_running_requests": info.get("max_running_requests"),
            "dp_size": info.get("dp_size"),
            "ranks": per_rank,
        }
    if snap.framework == "vllm":
        flat = dict(snap.vllm_flat)
        labels = snap.cache_config_info or {}
        blocks = flat.get("num_gpu_blocks", (labels.get("num_gpu_blocks"), ""))[0]
        block_size = flat.get("block_size", (labels.get("block_size"), ""))[0]
        out: dict[str, Any] = {
            "num_gpu_blocks": _metric_value(str(blocks)) if blocks is not None else None,
            "block_size": _metric_value(str(block_size)) if block_size is not None else None,
            "max_num_seqs": flat.get("max_num_seqs", (None, ""))[0],
        }
        if isinstance(out["num_gpu_blocks"], int) and isinstance(out["block_size"], int):
            out["token_capacity"] = out["num_gpu_blocks"] * out["block_size"]
        return out
    return {}


def _capacity_findings(
    capacity: Mapping[str, Any], wanted: Mapping[str, Any], snap: LiveSnapshot, at_base: str, rules: Any
) -> list[Finding]:
    findings: list[Finding] = []
    path = snap.server_info_path or "/server_info"
    if snap.framework == "sglang":
        ranks = capacity.get("ranks") or []
        effective = [
            r["effective_max_running_requests"]
            for r in ranks
            if isinstance(r.get("effective_max_running_requests"), int)
        ]
        tokens = [r["token_capacity"] for r in ranks if isinstance(r.get("token_capacity"), int)]
        requested: Any = wanted.get("max_running_requests", capacity.get("max_running_requests"))
        try:
            requested_n = int(requested) if requested is not None else None
        except (TypeError, ValueError):
            requested_n = None
        total = sum(effective) if effective else None
        if requested_n is not None and total is not None and total < requested_n:
            findings.append(
                rules.LV008.finding(
                    f"max_running_requests: {requested_n} requested, but the schedulers admit only {total} "
                    f"({' + '.join(map(str, effective))} across {len(effective)} DP rank(s); token capacity "
                    f"{', '.join(map(str, tokens)) or 'unknown'})",
                    at=f"{at_base}{path}#/internal_states/0/effective_max_running_requests_per_dp",
                    setting="max_running_requests",
                )
            )
        parts = []
        if capacity.get("max_total_num_tokens") is not None:
            parts.append(f"KV token capacity {capacity['max_total_num_tokens']}")
        if effective:
            parts.append(f"max running requests per DP rank {', '.join(map(str, effective))}")
        if capacity.get("max_req_input_len") is not None:
            parts.append(f"max request input length {capacity['max_req_input_len']}")
        if parts:
            findings.append(
                rules.LV007.finding("; ".join(parts), at=f"{at_base}{path}#/max_total_num_tokens")
            )
    elif snap.framework == "vllm":
        parts = []
        if capacity.get("token_capacity") is not None:
            parts.append(
                f"KV token capacity {capacity['token_capacity']} ({capacity['num_gpu_blocks']} blocks "
                f"x {capacity['block_size']})"
            )
        if capacity.get("max_num_seqs") is not None:
            parts.append(f"max_num_seqs {capacity['max_num_seqs']}")
        if parts:
            findings.append(
                rules.LV007.finding("; ".join(parts), at=f"{at_base}/metrics#/vllm:cache_config_info")
            )
    return findings
