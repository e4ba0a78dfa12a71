"""The local Hugging Face cache: the snapshot a repo id names there (offline, never a download).

Apart from the resolution layer because a check that resolves nothing still looks a model's config.json up
here (check.py ``model_config_path``, for the memory layer), and it should not import that layer to do so.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from argtrace import localfs

# a repo id as the Hub names one (huggingface_hub validate_repo_id: ORG/NAME of word characters, - and .)
REPO_ID = re.compile(r"[\w.-]+/[\w.-]+")


def hf_snapshot(repo_id: str) -> Path | None:
    if not REPO_ID.fullmatch(repo_id):
        return None
    home = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface"))
    hub = Path(os.environ.get("HF_HUB_CACHE", home / "hub"))
    repo = hub / ("models--" + repo_id.replace("/", "--"))
    ref = repo / "refs" / "main"
    try:
        if not localfs.is_file(ref):  # missing, or a FIFO that would block the read
            raise FileNotFoundError(str(ref))
        snap = repo / "snapshots" / ref.read_text().strip()
    except (OSError, UnicodeDecodeError):
        snaps = sorted((repo / "snapshots").glob("*")) if localfs.is_dir(repo / "snapshots") else []
        snap = snaps[-1] if snaps else Path("/nonexistent")
    return snap if localfs.is_file(snap / "config.json") else None
