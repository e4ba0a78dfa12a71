"""``why`` on Python's "ModuleNotFoundError: No module named 'pybase64'" when the module is one of SGLang's
or vLLM's own requirements (sglang#13276: MiniMax-M2 from a Python 3.14 environment that lacks pybase64).

The words are Python's import system's, so ``why`` said only "the installed package is broken or missing",
and matched a few framework sites on them. A module whose name is a distribution the framework's wheel
requires (``Requires-Dist`` in its METADATA: ``frameworks/data/framework_requires.json``,
scripts/gen_framework_requires.py) says more: the framework was installed without its dependencies in the
environment the server ran in (``--no-deps``, an install that failed half-way, or a different interpreter's
environment), and the fix is to install them there. A module the text shows inside the framework's own
frames (``sglang/__init__.py`` importing it) names that framework first. The framework's own modules are
why_module's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TABLE = "frameworks/data/framework_requires.json"
_MISSING = re.compile(r"\bNo module named '(?P<module>[A-Za-z_][\w.]*)'")
_NAME = {"sglang": "SGLang", "vllm": "vLLM"}


@functools.cache
def _frameworks() -> dict[str, Any]:
    from argtrace.package_data import bundled_json

    table: dict[str, Any] = bundled_json(_TABLE).get("frameworks") or {}
    return table


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dependency_error(text: str) -> dict[str, Any] | None:
    """The framework whose requirement the missing module is, with what that means and the fix; None when
    the text names no missing module, or one no framework read requires (or a framework's own module)."""
    from argtrace.frameworks.schema import version_key

    m = _MISSING.search(text)
    if m is None:
        return None
    top = m.group("module")
    if "." in top or top in _NAME:
        # a submodule missing ('transformers.models.glm_ocr'): the package is there, another release of it
        # lacks the module; the framework's own module: why_module's
        return None
    wanted = _norm(top)
    # the framework whose frames the text shows first, then the others
    order = sorted(_NAME, key=lambda fw: (f"{fw}/" not in text, fw))
    for fw in order:
        releases = _frameworks().get(fw) or {}
        having = sorted((v for v, facts in releases.items() if wanted in facts["requires"]), key=version_key)
        if not having:
            continue
        extras = releases[having[-1]]["requires"][wanted]
        how = f"with the extra {', '.join(extras)}" if extras else "in every install"
        name = _NAME[fw]
        return {
            "module": top,
            "framework": fw,
            "meaning": (
                f"{top} is a requirement of {name} ({name} {', '.join(having)}: its wheel's Requires-Dist, "
                f"{how}), and the environment the server ran in does not have it: {name} was installed there "
                "without its dependencies (--no-deps, an install that stopped half-way), or the server runs "
                "another interpreter's environment than the one it was installed in"
            ),
            "fix": (
                f"install {name}'s requirements in the environment that runs the server (pip install "
                f"{wanted}, or reinstall {fw} there with its dependencies, in a Python version its release "
                "supports)"
            ),
        }
    return None


def render_dependency(section: Mapping[str, Any]) -> list[str]:
    found = section.get("dependency")
    if not found:
        return []
    return [f"python: {found['meaning']}", f"  fix: {found['fix']}"]
