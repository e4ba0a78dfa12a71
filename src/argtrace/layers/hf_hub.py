"""The model's ``config.json`` from the Hugging Face Hub, on request (``check --fetch-config``): that one
file, never weights, kept in argtrace's cache and read from there the next time.

Resolution and the memory layer read the model's ``config.json`` (its architecture, sizes, quantization,
hybrid layers). On a machine that does not hold the model (a laptop, a CI runner, a login node) a repo id
names a file argtrace could not read, and the report said so (RS004) and stopped there; the real-case
batches kept dozens of misses for that reason alone ("config.json is not read on a new user's machine").
The download is the user's explicit choice: a check never touches the network by default.

The file is asked for as ``huggingface_hub`` asks for it (``hf_hub_url``: ``{endpoint}/{repo_id}/resolve/
{revision}/config.json``, ``HF_ENDPOINT`` else ``https://huggingface.co``), with the token it would send
(``HF_TOKEN``, else ``HUGGING_FACE_HUB_TOKEN``, else the file ``HF_TOKEN_PATH`` or ``$HF_HOME/token``). The
token goes to the endpoint's host only: Python's ``urllib`` copies every header, ``Authorization`` too, onto
a redirect to any host, so a redirect to another host is followed without it. The answer is bounded (1 MiB,
10 s) and must be a JSON object; a refusal is said in the report's notes with its reason and what to do.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from argtrace import localfs
from argtrace.cache_dirs import read_private_file, user_cache_dir, write_private_file
from argtrace.layers.hf_cache import REPO_ID
from argtrace.model import ServerCommand

DEFAULT_ENDPOINT = "https://huggingface.co"
MAX_BYTES = 1 << 20  # a config.json is a few kB (the shipped test models' are at most 3.2 kB)
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class HubConfig:
    """What ``--fetch-config`` did for the model ``repo`` at ``revision``: the directory holding its
    ``config.json`` (None when it was not fetched) and a sentence for the report's notes."""

    repo: str
    revision: str
    directory: Path | None
    note: str

    def section(self) -> dict[str, str]:
        """The report's ``model_config`` section for a fetched file."""
        assert self.directory is not None
        return {
            "source": "hub",
            "repo": self.repo,
            "revision": self.revision,
            "path": str(self.directory / "config.json"),
        }


def fetch_for_launch(server: ServerCommand, framework: str | None, *, use_cache: bool) -> HubConfig | None:
    """``check --fetch-config`` for one server start: its model's config.json from the Hub (the launch's
    ``--revision``), None when the model is a directory here or in the Hugging Face cache (read where it is,
    as without the option); a ``HubConfig`` without a directory says why nothing was fetched."""
    from argtrace.layers.hf_cache import hf_snapshot
    from argtrace.layers.resolution import model_value

    words = [w.text for w in server.server_args]
    known = [w for w in words if w is not None]
    model = model_value(known, framework)[0] if framework in ("sglang", "vllm") and known == words else None
    if model is None:
        return HubConfig(
            "", "", None, "--fetch-config: no model word of the launch is known here; nothing was fetched"
        )
    if localfs.is_file(Path(model) / "config.json") or hf_snapshot(model) is not None:
        return None
    revision = next((known[i + 1] for i, w in enumerate(known[:-1]) if w == "--revision"), None)
    revision = revision or next((w.split("=", 1)[1] for w in known if w.startswith("--revision=")), None)
    return fetch_config(model, revision, os.environ, use_cache=use_cache)


def hub_cache_dir() -> Path:
    """``$ARGTRACE_CACHE_DIR/hub`` when set (the tests' machines), else ``<user cache dir>/hub``."""
    override = os.environ.get("ARGTRACE_CACHE_DIR")
    return Path(os.path.expanduser(override) if override else user_cache_dir()) / "hub"


def endpoint(env: Mapping[str, str]) -> str:
    return (env.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def hub_token(env: Mapping[str, str]) -> str | None:
    """The token huggingface_hub would send (``constants.py``/``utils/_auth.py``: the variables, then the
    token file)."""
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        if env.get(name, "").strip():
            return env[name].strip()
    home = env.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "huggingface")
    path = env.get("HF_TOKEN_PATH") or os.path.join(home, "token")
    data = read_private_file(path)  # a token file others could write is not believed
    text = data.decode("utf-8", "replace").strip() if data else ""
    return text or None


def config_url(repo: str, revision: str, env: Mapping[str, str]) -> str:
    return f"{endpoint(env)}/{repo}/resolve/{urllib.parse.quote(revision, safe='')}/config.json"


def shown_url(url: str) -> str:
    """``url`` without the user and password an ``HF_ENDPOINT`` may carry (``https://user:pw@mirror``)."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


class _SameHostAuth(urllib.request.HTTPRedirectHandler):
    """Follow a redirect, dropping ``Authorization`` when it leads to another host (or scheme, or port)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            before, after = urllib.parse.urlsplit(req.full_url), urllib.parse.urlsplit(new.full_url)
            if (before.scheme, before.netloc) != (after.scheme, after.netloc):
                new.remove_header("Authorization")
        return new


_REFUSED = {
    401: "the repo is gated or private, or the token is refused: accept its terms on the Hub, set HF_TOKEN",
    403: "the token may not read this repo: accept its terms on the Hub, or use a token that can",
    404: "no such repo, revision or file on the Hub (a local path, a typo, or a revision that is not there)",
}


def _download(url: str, token: str | None) -> tuple[bytes | None, str | None]:
    request = urllib.request.Request(url, headers={"User-Agent": "argtrace"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(_SameHostAuth)
    try:
        with opener.open(request, timeout=TIMEOUT_S) as answer:
            data = answer.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as error:
        return None, f"HTTP {error.code}: {_REFUSED.get(error.code, error.reason)}"
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        return None, f"the Hub was not reached ({reason}): check the network, or HF_ENDPOINT"
    if len(data) > MAX_BYTES:
        return None, f"the answer is larger than {MAX_BYTES // 1024} KiB: not a config.json"
    return data, None


def _checked(data: bytes) -> str | None:
    """Why ``data`` is not a config.json to keep, or None."""
    from argtrace import safe_json

    try:
        value = safe_json.loads(data)
    except ValueError:
        return "the answer is not JSON"
    if not isinstance(value, dict):
        return "the answer is not a JSON object"
    return None


def fetch_config(
    repo: str, revision: str | None, env: Mapping[str, str], *, use_cache: bool = True
) -> HubConfig:
    """``repo``'s config.json at ``revision`` (``main`` when None): from argtrace's cache when it holds it and
    ``use_cache``, else from the Hub into the cache."""
    revision = revision or "main"
    url = config_url(repo, revision, env)
    said = shown_url(url)
    if not REPO_ID.fullmatch(repo) or ".." in repo:
        return HubConfig(
            repo, revision, None, f"--fetch-config: {repo!r} is not a Hugging Face repo id (ORG/NAME)"
        )
    directory = (
        hub_cache_dir() / ("models--" + repo.replace("/", "--")) / urllib.parse.quote(revision, safe="")
    )
    kept = read_private_file(str(directory / "config.json")) if use_cache else None
    if kept is not None and _checked(kept) is None:
        return HubConfig(
            repo,
            revision,
            directory,
            f"config.json of {repo} ({revision}) read from argtrace's "
            f"copy of {said}, fetched by an earlier --fetch-config",
        )
    data, problem = _download(url, hub_token(env))
    if data is not None:
        problem = _checked(data)
    if data is None or problem is not None:
        return HubConfig(
            repo,
            revision,
            None,
            f"--fetch-config: config.json of {repo} not fetched from {said}: "
            f"{problem}; model-dependent values are not read (pass --model-config DIR|config.json)",
        )
    if not write_private_file(str(directory / "config.json"), data):
        return HubConfig(
            repo,
            revision,
            None,
            f"--fetch-config: config.json of {repo} fetched from {said} but "
            f"not kept: {directory} is not a private directory of this user",
        )
    return HubConfig(repo, revision, directory, f"config.json of {repo} ({revision}) fetched from {said}")
