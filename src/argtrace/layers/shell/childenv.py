"""The variables a child shell (``bash -c '...'``, ``bash script.sh``, an ``srun`` task's shell) gets whose
values are not known here.

bash hands a child every exported variable, whatever its value (bash(1), ENVIRONMENT). A variable exported
from a command substitution (``export HEAD=$(scontrol show hostnames ... | head -n 1)``) has a value argtrace
does not know: the child has it, set, with that unknown value. Dropping it, as if unset, made the child's
``"$HEAD"`` an empty word and a wrong alarm ("`--master-addr` gets an empty value") on SLURM scripts that
pass the head node to ``srun bash -c '...'``. ``srun --export`` keeps only some variables from its tasks
(``layers/slurm.py``): an unknown one it keeps from the task stays away from the child too. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.layers.slurm import Export


def unknown_exports(
    exported: Mapping[str, tuple[str | None, str | None, str, str | None]],
    prefix_env: Mapping[str, tuple[str | None, str | None, str, str | None]],
    export: Export | None,
) -> dict[str, str]:
    """Name -> why its value is unknown, for the exported variables (and ``NAME=value`` prefixes) whose value
    argtrace does not know and that reach the child."""
    unknown: dict[str, str] = {}
    for source in (exported, prefix_env):
        for name, (value, _at, expansion, reason) in source.items():
            if value is None:
                unknown[name] = reason or f"exported from {expansion or 'a value not known statically'}"
            else:
                unknown.pop(name, None)  # a prefix assignment with a known value replaces the export
    if export is not None and unknown:
        # srun's own assignments give the task a known value, except under ALL, where the caller's wins
        given = {name for name, _ in export.sets} | (
            set() if export.everything else {name for name, _ in export.assigned}
        )
        unknown = {name: why for name, why in unknown.items() if export.keeps(name) and name not in given}
    return unknown
