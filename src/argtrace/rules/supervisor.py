"""Rules of a Supervisor configuration as the launch carrier (TP098-TP100, TP103): what supervisord's
reading of ``[program:NAME]`` and ``[include]`` does to the server's command (supervisor 4.3.0,
``options.py``, ``datatypes.py``, ``process.py``; ``layers/transport/supervisor.py``)."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_VLLM = "/opt/venv/bin/vllm serve Qwen/Qwen3-0.6B --port 8000"

TP098 = Rule(
    code="TP098",
    layer="transport",
    severity="error",
    title="supervisord refuses the configuration, so no program starts",
    rationale=(
        "supervisord reads the whole file when it starts or rereads it (`supervisorctl reread`/`update`). "
        "A `%(name)s` it cannot expand (names other than `here`, `program_name`, `group_name`, "
        "`host_node_name`, `process_num`, `numprocs` and `ENV_X`), an `environment=` that is not "
        '`KEY=value,KEY2="value"`, a `command=` with an unclosed quote (shlex: "No closing quotation"), a '
        "`[program:x]` without `command=` or a line that is not `key=value` make it stop with that "
        "message: no program of the file starts, the server included."
    ),
    fix="Correct the line supervisord names: write `%%` for a percent sign in a value, quote an "
    '`environment=` value holding a comma (`KEY="a,b"`), close the quote in `command=`.',
    example=Example(
        files={"vllm.conf": f"[program:vllm]\ncommand={_VLLM} --gpu-memory-utilization 90%\n"},
        argv=("check", "--no-resolve", "vllm.conf"),
    ),
    correct=Example(
        files={"vllm.conf": f"[program:vllm]\ncommand={_VLLM} --gpu-memory-utilization 0.9\n"},
        argv=("check", "--no-resolve", "vllm.conf"),
    ),
)

TP099 = Rule(
    code="TP099",
    layer="transport",
    severity="info",
    basis="assumed",
    title="A `%(ENV_X)s` of supervisord's own environment, not known here",
    rationale=(
        "`%(ENV_X)s` in a program's `command=` is the variable X of the environment supervisord itself was "
        "started with (the shell, unit or container that ran it), or of an `environment=` line. The file "
        "does not show supervisord's environment, so the word is not known here and what depends on it is "
        "not checked; if supervisord's environment lacks X, supervisord refuses the whole configuration."
    ),
    fix="Give the value supervisord runs with: `argtrace check --env X=value FILE`.",
    example=Example(
        files={"vllm.conf": f"[program:vllm]\ncommand={_VLLM} --tensor-parallel-size %(ENV_TP)s\n"},
        argv=("check", "--no-resolve", "vllm.conf"),
    ),
    correct=Example(
        files={"vllm.conf": f"[program:vllm]\ncommand={_VLLM} --tensor-parallel-size %(ENV_TP)s\n"},
        argv=("check", "--no-resolve", "--env", "TP=2", "vllm.conf"),
    ),
)

TP100 = Rule(
    code="TP100",
    layer="transport",
    severity="error",
    title="`NAME=value` in front of a supervisor program's command: no shell reads it",
    rationale=(
        "supervisor splits `command=` with `shlex.split` and executes its first word (process.py, "
        "`get_execv_args`): no shell runs, so `CUDA_VISIBLE_DEVICES=0 vllm serve ...` looks for a program "
        "named `CUDA_VISIBLE_DEVICES=0`, finds none (`spawnerr: can't find command`) and the program ends "
        "FATAL after its retries (Supervisor/supervisor#989). The server never starts."
    ),
    fix='Move the assignment to the program\'s `environment=` line: `environment=CUDA_VISIBLE_DEVICES="0"`.',
    example=Example(
        files={"vllm.conf": "[program:vllm]\ncommand=CUDA_VISIBLE_DEVICES=0 " + _VLLM + "\n"},
        argv=("check", "--no-resolve", "vllm.conf"),
    ),
    correct=Example(
        files={"vllm.conf": "[program:vllm]\ncommand=" + _VLLM + '\nenvironment=CUDA_VISIBLE_DEVICES="0"\n'},
        argv=("check", "--no-resolve", "vllm.conf"),
    ),
)

TP103 = Rule(
    code="TP103",
    layer="transport",
    severity="info",
    title="supervisord also starts the programs of the files `[include]` names, not read here",
    rationale=(
        "An `[include]` section's `files=` names more configuration files (globs, relative to this file's "
        "directory; supervisor 4.3.0 `options.py`, `ServerOptions.read_config`): supervisord reads their "
        "`[program:x]` sections with this file's and starts them all. argtrace reads the file it is given, "
        "so a server started by an included file is not checked from here."
    ),
    fix="Check the included files too: `argtrace lint /etc/supervisor/conf.d/` (or each file by its path).",
    example=Example(
        files={"supervisord.conf": f"[include]\nfiles = conf.d/*.conf\n\n[program:vllm]\ncommand={_VLLM}\n"},
        argv=("check", "--no-resolve", "supervisord.conf"),
    ),
    correct=Example(
        files={"supervisord.conf": f"[program:vllm]\ncommand={_VLLM}\n"},
        argv=("check", "--no-resolve", "supervisord.conf"),
    ),
)
