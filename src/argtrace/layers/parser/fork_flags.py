"""A flag no release of the framework knows, on a launch written for a build that is not upstream's (PA059).

Vendor builds of vLLM (Habana's ``vllm-fork`` for Gaudi, and platform plugins) add options and environment
variables of their own. A launch written for one sets variables with the framework's prefix that no bundled
release reads, several of them (``VLLM_PROMPT_BS_BUCKET_MIN``, ``VLLM_DECODE_BLOCK_BUCKET_MAX``,
``VLLM_GRAPH_RESERVED_MEM``), none a near-miss of a name a release reads (a misspelling is PR001's). A flag
no release knows on such a launch is then unknown to upstream, not shown to be refused: the build the
launch is for may add it. The evidence is the generated schemas' variable names (``env_var_names``, read
from each release's code), not a table of vendors; the finding rests on the launch running that build.
"""

from __future__ import annotations

import difflib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.frameworks.schema import Schema
    from argtrace.model import ServerCommand

# layers/process.py's FRAMEWORK_PREFIXES and NEAR_MISS (process imports the parser: not imported from there)
_PREFIXES = {"sglang": ("SGLANG_", "SGL_"), "vllm": ("VLLM_",)}
# a name this close to one a release reads is a misspelling of it, PR001's
_NEAR_MISS = 0.88
_LEAST = 2  # one unknown variable may be a script's own or a typo; a build's own are several


def foreign_variables(server: ServerCommand, history: list[Schema]) -> list[str]:
    """The variables with the framework's prefix the launch gives the server that no bundled release reads
    and none misspells; empty when fewer than two."""
    if not history:
        return []
    prefixes = _PREFIXES.get(history[0].framework, ())
    read = sorted({n for s in history for n in s.env_var_names})
    found = []
    for name, value in sorted(server.env.items()):
        origin = value.origin
        inherited = origin.expansion in ("environment", "bash") or (
            origin.at is None and origin.expansion is None
        )
        if inherited or not name.startswith(prefixes) or name in read or name in server.script_reads:
            continue
        if difflib.get_close_matches(name, read, n=1, cutoff=_NEAR_MISS):
            continue
        found.append(name)
    return found if len(found) >= _LEAST else []


def fork_flag_message(shown_flag: str, schema: Schema, foreign: list[str]) -> tuple[str, str]:
    """PA059's message and fix."""
    names = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
    message = (
        f"{shown_flag} is not a flag of any bundled {schema.framework} release ({schema.label} refuses it: "
        f'"unrecognized arguments", exit 2); the launch sets {names}, which no {schema.framework} release '
        "reads either: it is written for a build that is not upstream's (a vendor fork or platform plugin), "
        "whose parser may add the flag"
    )
    fix = (
        "check the flag against the build the launch runs (its `--help`); on upstream "
        f"{schema.framework}, remove it"
    )
    return message, fix
