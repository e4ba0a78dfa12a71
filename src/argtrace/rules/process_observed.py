"""Rules of the observed process (``PR100``-``PR199``): what a real process got, against the prediction.

The ``PR`` prefix is the process layer's; ``PR001``-``PR099`` are the static process rules
(:mod:`argtrace.rules.process`). These compare the static prediction of ``check`` with a process that
really started: one captured by ``argtrace run`` (the launch script executed with the server start
intercepted) or a running one (``check --pid``).

Examples that need a running server process declare ``needs=("process-fixture:sglang",)``: the test starts
``tests/observed/fake_server.py`` (a process whose argv is ``python -m sglang.launch_server ...``) and
replaces ``{pid}`` in ``argv`` by its pid.
"""

from __future__ import annotations

from argtrace.rules import Example, Rule

# A launch script that writes the file it then sources: the static analysis reads the file as it is before
# the run (CHUNK=4096), the real run sources what the script just wrote (CHUNK=8192).
_GENERATED_SOURCE = (
    "#!/bin/bash\n"
    "echo 'CHUNK=8192' > tuned.env   # written by a tuning step at launch time\n"
    "source ./tuned.env\n"
    'python3 -m sglang.launch_server --model-path /models/qwen --chunked-prefill-size "$CHUNK"\n'
)
_STATIC_SOURCE = (
    "#!/bin/bash\n"
    "source ./tuned.env\n"
    'python3 -m sglang.launch_server --model-path /models/qwen --chunked-prefill-size "$CHUNK"\n'
)

_FAKE_METADATA = "Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.10.post1\n"

PR100 = Rule(
    code="PR100",
    layer="process",
    basis="observed",
    severity="error",
    title="the process got other arguments than predicted",
    rationale="The server argv observed in a real process (captured by `argtrace run`, or read from a "
    "running "
    "process with `check --pid`) differs from what the static analysis of the script predicts: something "
    "the script does at run time (a file it writes then sources, a function, a different branch, an edited "
    "script) changed a flag or its value. What the process received is what counts.",
    fix="Look at the differing words and their origin; make the script's value static (or pass it as an "
    "argument) so that what you read is what runs.",
    example=Example(
        argv=["run", "launch.sh"], files={"launch.sh": _GENERATED_SOURCE, "tuned.env": "CHUNK=4096\n"}
    ),
    correct=Example(
        argv=["run", "launch.sh"], files={"launch.sh": _STATIC_SOURCE, "tuned.env": "CHUNK=8192\n"}
    ),
)

PR101 = Rule(
    code="PR101",
    layer="process",
    basis="observed",
    severity="error",
    title="the process got another environment than predicted",
    rationale="An environment variable the server reads differs between the prediction and the observed "
    "process: the script sets it from a file written at run time, a sourced profile or the container sets "
    "it, or the script's `export` never ran. For a running process this is its *start* environment "
    "(`/proc/PID/environ`).",
    fix="Set framework variables (`SGLANG_*`, `VLLM_*`, `CUDA_VISIBLE_DEVICES`, `NCCL_*`) explicitly in the "
    "launch script, next to the server command.",
    example=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\n"
            "echo 'export SGLANG_ENABLE_SPEC_V2=1' > spec.env\n"
            "source ./spec.env\n"
            "python3 -m sglang.launch_server --model-path /models/qwen\n",
            "spec.env": "export SGLANG_ENABLE_SPEC_V2=0\n",
        },
    ),
    correct=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\nexport SGLANG_ENABLE_SPEC_V2=1\n"
            "python3 -m sglang.launch_server --model-path /models/qwen\n",
        },
    ),
    exceptions="A variable set by the caller's environment (not the script) is reported as a warning.",
)

PR102 = Rule(
    code="PR102",
    layer="process",
    basis="observed",
    severity="warning",
    title="another Python interpreter ran the server",
    rationale="The interpreter that really started the server is not the one the static analysis found on "
    "the PATH: another `python3` comes first at run time (a venv activated in a sourced file, a PATH the "
    "script builds), so another framework version or none at all is imported.",
    fix="Call the interpreter by its absolute path (`/opt/venv/bin/python -m sglang.launch_server`) or "
    "activate the environment before the launch.",
    example=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\n"
            "mkdir -p venv/bin && ln -sf /usr/bin/python3.11 venv/bin/python3\n"
            'export PATH="$PWD/venv/bin:$PATH"\n'
            "python3 -m sglang.launch_server --model-path /models/qwen\n",
        },
        needs=("binary:/usr/bin/python3.11",),
    ),
    correct=Example(
        argv=["run", "launch.sh"],
        files={"launch.sh": "#!/bin/bash\npython3 -m sglang.launch_server --model-path /models/qwen\n"},
    ),
)

PR103 = Rule(
    code="PR103",
    layer="process",
    basis="observed",
    severity="info",
    title="a value the static analysis could not know",
    rationale="The script computes a word at run time (command substitution, a file read, a branch on the "
    "machine's state); the static analysis marks it unknown. The observed process shows the value it "
    "actually had.",
    fix="Nothing to fix when the value is right; make it static if it should not depend on the machine.",
    example=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\n"
            "PORT=$(cat port.txt)\n"
            'python3 -m sglang.launch_server --model-path /models/qwen --port "$PORT"\n',
            "port.txt": "30001\n",
        },
    ),
    correct=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\n"
            "python3 -m sglang.launch_server --model-path /models/qwen --port 30001\n"
        },
    ),
)

PR104 = Rule(
    code="PR104",
    layer="process",
    basis="observed",
    severity="warning",
    title="the running server is older than the launch script",
    rationale="The process was started before the script was last modified: the server runs the previous "
    "version of the launch, so the fix you just made is not what it received.",
    fix="Restart the server with the current script (stop the old process first).",
    example=Example(
        argv=["check", "--pid", "{pid}", "launch.sh"],
        files={"launch.sh": "#!/bin/bash\npython3 -m sglang.launch_server --model-path /models/qwen\n"},
        needs=("process-fixture:sglang",),
    ),
)

PR105 = Rule(
    code="PR105",
    layer="process",
    basis="observed",
    severity="warning",
    title="the run started a different number of servers than predicted",
    rationale="The static analysis predicts one number of server starts, the real run captured another: a "
    "branch on run-time state, a loop, or a start hidden from the static view (`eval`, a generated script).",
    fix="Check which branch ran; make the server start explicit in the script.",
    example=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\n"
            "for port in $(cat ports.txt); do\n"
            '  python3 -m sglang.launch_server --model-path /models/qwen --port "$port" &\n'
            "done\nwait\n",
            "ports.txt": "30000 30001\n",
        },
    ),
    correct=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\npython3 -m sglang.launch_server --model-path /models/qwen &\nwait\n"
        },
    ),
)

PR106 = Rule(
    code="PR106",
    layer="process",
    basis="observed",
    severity="error",
    title="argtrace run cannot intercept this server start",
    rationale="`argtrace run` stops the server through a `sitecustomize` probe carried by `PYTHONPATH` and "
    "shims on `PATH`. An absolute interpreter path with `-I`, `-E` or `-S` ignores both, and a launcher that "
    "is not Python cannot be intercepted: running the script would start the real server. Nothing was run.",
    fix="Use `argtrace check` (static) for this script, or drop `-I`/`-E`/`-S` from the interpreter call.",
    example=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\n"
            "/usr/bin/python3 -I -m sglang.launch_server --model-path /models/qwen\n"
        },
    ),
    correct=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\n/usr/bin/python3 -m sglang.launch_server --model-path /models/qwen\n"
        },
    ),
)

PR107 = Rule(
    code="PR107",
    layer="process",
    basis="observed",
    severity="warning",
    title="the process imports another framework version than assumed",
    rationale="The static analysis parsed the arguments with one framework version's schema; the interpreter "
    "that really runs the server has another version installed, whose flags and defaults differ.",
    fix="Pass `--framework-version` with the installed version (or `--python` with the server's "
    "interpreter), or install the version you meant.",
    example=Example(
        argv=["run", "--framework-version", "0.5.23", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\n"
            'export PYTHONPATH="$PWD/site"\n'
            "python3 -m sglang.launch_server --model-path /models/qwen\n",
            "site/sglang/__init__.py": "",
            "site/sglang/launch_server.py": "raise SystemExit('the real server must never start')\n",
            "site/sglang-0.5.10.post1.dist-info/METADATA": _FAKE_METADATA,
        },
    ),
    correct=Example(
        argv=["run", "--framework-version", "0.5.10.post1", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\n"
            'export PYTHONPATH="$PWD/site"\n'
            "python3 -m sglang.launch_server --model-path /models/qwen\n",
            "site/sglang/__init__.py": "",
            "site/sglang/launch_server.py": "raise SystemExit('the real server must never start')\n",
            "site/sglang-0.5.10.post1.dist-info/METADATA": _FAKE_METADATA,
        },
    ),
)

PR108 = Rule(
    code="PR108",
    layer="process",
    basis="observed",
    severity="info",
    title="a command was replaced by a recorder",
    rationale="Launch scripts often begin with `pkill -f sglang` and end with an `until curl .../health` "
    "loop. "
    "`argtrace run` replaces kill, pkill, killall, rm, ssh, scp, curl, wget, sleep and nvidia-smi by "
    "recorders so that running the script changes nothing; what they would have done is listed.",
    fix="Nothing to fix. Use `--no-stubs` to run them for real.",
    example=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\npkill -f sglang.launch_server\n"
            "python3 -m sglang.launch_server --model-path /models/qwen\n",
        },
    ),
    correct=Example(
        argv=["run", "launch.sh"],
        files={"launch.sh": "#!/bin/bash\npython3 -m sglang.launch_server --model-path /models/qwen\n"},
    ),
)

PR109 = Rule(
    code="PR109",
    layer="process",
    basis="observed",
    severity="error",
    title="the observed process is not the server the launch starts",
    rationale="The process compared is not an SGLang/vLLM server start of the framework the launch uses (a "
    "wrong pid, another framework's server), so nothing of the launch can be found in it.",
    fix="Pass the pid of the server process (`argtrace ps` lists them), or `--pid auto`.",
    example=Example(
        argv=["check", "--pid", "{pid}", "launch.sh"],
        files={"launch.sh": "#!/bin/bash\nvllm serve /models/qwen --max-num-seqs 64\n"},
        needs=("process-fixture:sglang",),
    ),
)

PR110 = Rule(
    code="PR110",
    layer="process",
    basis="observed",
    severity="error",
    title="the script stopped before starting the server",
    rationale="The launch script exited (or hung past the timeout) before any server start was reached: a "
    "command failed under `set -e`, a file is missing, the server command is not found. The server would "
    "never have received its arguments.",
    fix="Read the script's output tail in the report and fix the failing step.",
    example=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\nset -e\ncd /nonexistent/workdir\n"
            "python3 -m sglang.launch_server --model-path /models/qwen\n",
        },
    ),
    correct=Example(
        argv=["run", "launch.sh"],
        files={
            "launch.sh": "#!/bin/bash\nset -e\ncd /tmp\n"
            "python3 -m sglang.launch_server --model-path /models/qwen\n"
        },
    ),
)
