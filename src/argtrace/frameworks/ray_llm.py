"""The vLLM release a Ray Serve LLM image runs: the one its Ray release's ``llm`` extra pins.

Ray's ``rayproject/ray-llm:RAY-pyXY-cuZZ`` images (and Anyscale's ``anyscale/ray-llm``) install ``ray[llm]``,
whose ``llm`` extra names vLLM: exactly (``vllm[audio]==0.22.0`` from Ray 2.56.0 on) or as a lower bound
(``vllm>=0.8.5``, Ray 2.46.0). The requirement of every Ray release with ``ray.serve.llm`` is read from PyPI's
metadata by ``scripts/gen_ray_serve_llm.py`` (``src/argtrace/data/ray_serve_llm.json``); only an exact pin
decides a release, a bound tells nothing here. That the image holds the pinned release is the image's build
(it installs Ray's extra), said with the evidence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

IMAGES = ("rayproject/ray-llm", "anyscale/ray-llm")
_TAG = re.compile(r"^(?P<ray>\d+\.\d+\.\d+)(?:[-.]|$)")


@functools.cache
def _requirements() -> Mapping[str, str]:
    from argtrace.package_data import bundled_json

    data = bundled_json("data/ray_serve_llm.json")
    found: Mapping[str, str] = data.get("vllm_requirement") or {}
    return found


def engine_release(framework: str, image: str | None) -> tuple[str, str] | None:
    """(vLLM release, evidence) for a Ray LLM image whose Ray release pins vLLM exactly; None otherwise."""
    from argtrace.frameworks.release import hub_repository

    if framework != "vllm" or not image:
        return None
    name, colon, tag = image.partition("@")[0].rpartition(":")
    if not colon or "/" in tag or hub_repository(name) not in IMAGES:
        return None
    match = _TAG.match(tag)
    requirement = _requirements().get(match.group("ray")) if match else None
    if not requirement or "==" not in requirement:
        return None
    version = requirement.split("==", 1)[1].strip()
    return (
        version,
        f"image {image} (Ray {match.group('ray') if match else ''}'s llm extra pins {requirement})",
    )
