"""Rules of ``argtrace lint`` (a whole tree, no script arguments). Codes follow their layer's prefix."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_LAUNCH = (
    "#!/bin/bash\n"
    "# usage: launch.sh GPU PORT\n"
    "export CUDA_VISIBLE_DEVICES=$1\n"
    "python3 -m sglang.launch_server --model-path /models/qwen --port $2\n"
)

SH030 = Rule(
    code="SH030",
    layer="shell",
    severity="info",
    title="The script reads its arguments, which lint does not have",
    rationale=(
        "`argtrace lint` checks every launch file without script arguments. `$1`, `$@` and `$#` are then "
        "unknown, not empty: an empty `$1` would be a false alarm at every use (a GPU list with no GPU, "
        "a flag without its value). This one finding per script says which arguments it reads and where "
        "they matter; the values themselves are checked by `argtrace check SCRIPT ARGS...`."
    ),
    fix="Check the script with the arguments it is run with: `argtrace check SCRIPT ARGS...`.",
    example=Example(files={"launch.sh": _LAUNCH}, argv=("lint", "launch.sh")),
    correct=Example(
        files={"launch.sh": _LAUNCH.replace("$1", "0").replace("$2", "30000")}, argv=("lint", "launch.sh")
    ),
)
