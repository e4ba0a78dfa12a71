"""Rules of Python programs that start a server (TP094-TP097, PA053): ``subprocess``/``os.system`` calls,
SGLang's ``launch_server_cmd``/``popen_launch_server``, ``sglang.Engine``/``ServerArgs`` and vLLM's
``LLM``/``EngineArgs``/``AsyncEngineArgs``, read statically with ``ast`` (never imported or run;
``layers/transport/python_launch.py``)."""

from __future__ import annotations

from argtrace.rules import Example, Rule

TP094 = Rule(
    code="TP094",
    layer="transport",
    severity="info",
    title="A value of a Python launch that is not known before the program runs",
    rationale=(
        'argtrace reads a Python launch without running it: a literal (`"--tp"`, `2`, `"Qwen/Qwen3-8B"`) '
        "is known, a variable assigned one literal is followed, but an f-string's fields, `os.environ[...]`, "
        "a function's result or a parameter are only known when the program runs. The server's flag is "
        "checked, its value is not: what the parser says of it rests on that value."
    ),
    fix="Nothing to fix if intended; to check the value, write it as a literal or pass the launch's command "
    "line (`argtrace check -c 'python -m sglang.launch_server ...'`).",
    example=Example(
        files={
            "launch.py": "import os, subprocess\nmodel = os.environ['MODEL']\n"
            "subprocess.run(['python3', '-m', 'sglang.launch_server', '--model-path', model])\n"
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
    correct=Example(
        files={
            "launch.py": "import subprocess\n"
            "subprocess.run(['python3', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B'])\n"
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
)

TP095 = Rule(
    code="TP095",
    layer="transport",
    severity="info",
    title="A call of a Python launch whose command argtrace cannot read",
    rationale=(
        "A `subprocess` call, `os.system`, `sglang.Engine(**kwargs)` or `LLM(**kwargs)` whose command or "
        "keywords come from a variable argtrace cannot follow (built in a loop, returned by a function, read "
        "from a file) may start a server: it is not checked, and nothing is said about it beyond this."
    ),
    fix="Check the command the program builds (print it and pass it to `argtrace check -c '...'`), or write "
    "the call's list or keywords literally.",
    example=Example(
        files={
            "launch.py": "import json, sglang\nkwargs = json.load(open('engine.json'))\n"
            "engine = sglang.Engine(**kwargs)\n"
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
    correct=Example(
        files={
            "launch.py": "import sglang\nengine = sglang.Engine(**{'model_path': 'Qwen/Qwen3-8B'})\n",
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
)

TP096 = Rule(
    code="TP096",
    layer="transport",
    severity="error",
    title="A keyword the framework's Python class does not take",
    rationale=(
        "`sglang.Engine(**kwargs)` hands its keywords to `ServerArgs(**kwargs)`, and vLLM's `LLM(...)` hands "
        "its own and the rest to `EngineArgs(...)`: both are dataclasses, so a keyword that is no field "
        "(a command line's `--flag-name` spelling with dashes, an option of the HTTP server, a misspelt or "
        "removed name) makes Python raise `TypeError: __init__() got an unexpected keyword argument` before "
        "anything starts. The fields are read from the frameworks' classes (`scripts/gen_python_launch.py`) "
        "and the bundled releases' command lines."
    ),
    fix="Write the field's own name (the flag without `--`, dashes as underscores), or remove the keyword.",
    example=Example(
        files={
            "launch.py": "import sglang as sgl\n"
            "engine = sgl.Engine(model_path='Qwen/Qwen3-8B', tensor_parallel=2)\n"
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
    correct=Example(
        files={
            "launch.py": "import sglang as sgl\nengine = sgl.Engine(model_path='Qwen/Qwen3-8B', tp_size=2)\n"
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
)

TP097 = Rule(
    code="TP097",
    layer="transport",
    severity="error",
    title="A subprocess argv item that is not a string",
    rationale=(
        "`subprocess.Popen([...])` (and `run`, `call`, `check_call`, `check_output`) hands each item of the "
        'list to `execve` as a word: an `int`, `float` or `bool` item (`"--tp", 2`) makes it raise '
        "`TypeError: expected str, bytes or os.PathLike object, not int` and no process starts."
    ),
    fix='Write the item as a string (`"2"`, or `str(value)`).',
    example=Example(
        files={
            "launch.py": "import subprocess\n"
            "subprocess.Popen(['python3', '-m', 'sglang.launch_server', '--model-path', 'm', '--tp', 2])\n"
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
    correct=Example(
        files={
            "launch.py": "import subprocess\n"
            "subprocess.Popen(['python3', '-m', 'sglang.launch_server', '--model-path', 'm', '--tp', '2'])\n"
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
)

PA053 = Rule(
    code="PA053",
    layer="parser",
    severity="warning",
    title="A Python launch's string where the field takes a list",
    rationale=(
        "`sglang.Engine(**kwargs)` and vLLM's `LLM(...)` hand their keywords to `ServerArgs`/`EngineArgs` "
        "without argparse: the class keeps each value as given (a dataclass or a `msgspec.Struct` converts "
        "nothing). A field the class annotates as a list (`lora_target_modules: Optional[List[str]]`, read "
        "from the release's own class by `scripts/gen_python_launch.py`) given a bare string is one string, "
        "and the release's code that iterates the field sees its characters: verl handed "
        '`lora_target_modules="all-linear"` to SGLang, whose `set(...)` made it `{"a", "l", "-", ...}` and '
        'whose LoRA pool then died with "get_hidden_dim not implemented for i" (verl PR#7288). On the '
        "command line the same word is one item of the list."
    ),
    fix="Pass a list (`lora_target_modules=['all']`), one item per value, as the command line's flag takes "
    "them.",
    example=Example(
        files={
            "launch.py": "import sglang as sgl\n"
            "engine = sgl.Engine(model_path='Qwen/Qwen3-8B', enable_lora=True, max_lora_rank=64, "
            "lora_target_modules='all')\n"
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
    correct=Example(
        files={
            "launch.py": "import sglang as sgl\n"
            "engine = sgl.Engine(model_path='Qwen/Qwen3-8B', enable_lora=True, max_lora_rank=64, "
            "lora_target_modules=['all'])\n"
        },
        argv=("check", "--no-resolve", "launch.py"),
    ),
)
