"""The fuzz runs' shared data cache (tests/fuzz/harness.py ``case_env``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def fuzz_data_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One argtrace data cache for this worker's fuzz runs, empty at first (pytest makes it 0700, as
    ``cache_dirs.open_private_dir`` requires): the first runs build it, the others read it. Each run's HOME
    stays its own and empty."""
    return tmp_path_factory.mktemp("fuzz-data-cache")
