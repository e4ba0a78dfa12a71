"""Rules of two launch carriers, systemd service units and SkyPilot task YAML (TP060-TP069, TP083), and a
compose file read as a fragment of the project above it (TP106): what
systemd's command-line rules and SkyPilot's environment do to a server's words on their way."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_UNIT_HEAD = "[Unit]\nDescription=vLLM\n\n[Service]\n"
_VLLM = "/opt/vllm/bin/vllm serve Qwen/Qwen2.5-7B-Instruct"
_SKY_HEAD = "resources:\n  accelerators: L4:1\n\nenvs:\n  MODEL_NAME: Qwen/Qwen2.5-7B-Instruct\n"

TP060 = Rule(
    code="TP060",
    layer="transport",
    severity="error",
    title="systemd refuses the unit's command line, so the service never starts",
    rationale=(
        "systemd parses `ExecStart=` when it loads the unit. A quote that is not closed on the line (the "
        "line ends inside quotes), a `%` followed by a letter that is no specifier (`90%2`: systemd.unit(5), "
        '"Specifiers"; write `%%` for a percent sign), two `ExecStart=` lines in a service that is not '
        "`Type=oneshot`, or no `ExecStart=` at all make systemd log `Unit configuration has fatal error, "
        "unit will not be started` (measured with systemd 252's `systemd-analyze verify`): `systemctl "
        "start` fails and the server never runs."
    ),
    fix=(
        "Close the quote on the same line (a long command continues with a trailing backslash outside the "
        "quotes), write a literal percent sign as `%%`, keep one `ExecStart=` (an empty `ExecStart=` line "
        "resets the list in a drop-in)."
    ),
    example=Example(
        files={"vllm.service": _UNIT_HEAD + f'ExecStart={_VLLM} --chat-template "/opt/t.jinja\n'},
        argv=("check", "vllm.service"),
    ),
    correct=Example(
        files={"vllm.service": _UNIT_HEAD + f'ExecStart={_VLLM} --chat-template "/opt/t.jinja"\n'},
        argv=("check", "vllm.service"),
    ),
)

TP061 = Rule(
    code="TP061",
    layer="transport",
    severity="error",
    title="A word of `ExecStart=` starting with `$` vanishes: systemd reads all of it as a variable name",
    rationale=(
        "systemd substitutes a word that starts with `$` (not `${`) by the variable whose name is the *whole "
        'rest of the word*, split at blanks (systemd.service(5), "Command lines": `$FOO` as a separate '
        'word; systemd 252\'s `replace_env_argv`). `"$VENV/bin/vllm serve ..."` looks up a variable named '
        "`VENV/bin/vllm serve ...`, which no unit sets, and the word disappears: `bash -c` then has no "
        "command (`bash: -c: option requires an argument`, systemd/systemd#27036), a flag loses its value."
    ),
    fix=(
        "Write `${VENV}/bin/vllm` (braces substitute inside a word), or let the shell expand it: "
        "`/bin/bash -c 'exec \"$$VENV/bin/vllm\" serve ...'` (`$$` is a literal `$` for systemd)."
    ),
    example=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + "Environment=VENV=/opt/vllm\n"
            + 'ExecStart=/bin/bash -c "$VENV/bin/vllm serve Qwen/Qwen2.5-7B-Instruct"\n'
        },
        argv=("check", "vllm.service"),
    ),
    correct=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + "Environment=VENV=/opt/vllm\n"
            + 'ExecStart=/bin/bash -c "${VENV}/bin/vllm serve Qwen/Qwen2.5-7B-Instruct"\n'
        },
        argv=("check", "vllm.service"),
    ),
)

TP062 = Rule(
    code="TP062",
    layer="transport",
    severity="error",
    title="`$NAME` inside an `ExecStart=` word reaches the server literally",
    rationale=(
        "systemd substitutes `$NAME` only when it is a whole word; inside a word (`--port=$PORT`, "
        '`/models/$MODEL`) only the braced form `${NAME}` is substituted (systemd.service(5), "Command '
        "lines\"; systemd 252's `replace_env`). The server receives the four characters `$PORT`: a number "
        "does not parse, a path does not exist. (Under `bash -c` the shell expands it later, and this rule "
        "stays silent.)"
    ),
    fix="Write `${NAME}` (`--port=${PORT}`), or make `$NAME` a word of its own (`--port $PORT`).",
    example=Example(
        files={"vllm.service": _UNIT_HEAD + f"Environment=PORT=8000\nExecStart={_VLLM} --port=$PORT\n"},
        argv=("check", "vllm.service"),
    ),
    correct=Example(
        files={"vllm.service": _UNIT_HEAD + f"Environment=PORT=8000\nExecStart={_VLLM} --port=${{PORT}}\n"},
        argv=("check", "vllm.service"),
    ),
)

TP063 = Rule(
    code="TP063",
    layer="transport",
    severity="error",
    title="`${NAME}` holding several options reaches the server as one argument",
    rationale=(
        "`${NAME}` is replaced by the variable's exact value, blanks included, \"always resulting in exactly "
        'a single argument" (systemd.service(5), "Command lines"). A variable meant to carry several '
        'options (`Environment="VLLM_ARGS=--tensor-parallel-size 2 --max-model-len 8192"`) reaches the '
        "server as one word, which its argument parser does not take for options "
        "(ncabatoff/process-exporter#169)."
    ),
    fix="Write `$NAME` as a word of its own: systemd splits its value at blanks into separate arguments.",
    example=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + 'Environment="VLLM_ARGS=--max-model-len 8192 --dtype bfloat16"\n'
            + f"ExecStart={_VLLM} ${{VLLM_ARGS}}\n"
        },
        argv=("check", "vllm.service"),
    ),
    correct=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + 'Environment="VLLM_ARGS=--max-model-len 8192 --dtype bfloat16"\n'
            + f"ExecStart={_VLLM} $VLLM_ARGS\n"
        },
        argv=("check", "vllm.service"),
    ),
)

TP064 = Rule(
    code="TP064",
    layer="transport",
    severity="warning",
    title="A variable of `ExecStart=` is set nowhere in the unit: its word vanishes or is empty",
    rationale=(
        "A service does not get the environment of the shell that ran `systemctl start`: only what the unit "
        "sets (`Environment=`, `EnvironmentFile=`), what systemd sets itself (`PATH`, and `USER`/`HOME` "
        "with `User=`) and the manager's own environment (`systemctl set-environment`, "
        "`DefaultEnvironment=`). An unset `$NAME` word gives no argument at all, an unset `${NAME}` an empty "
        "one (systemd 252's `replace_env_argv`): a flag before it takes the next flag as its value, or none. "
        "argtrace does not see the manager's environment, so this rests on it not setting the name."
    ),
    fix="Set the variable in the unit (`Environment=NAME=value` or an `EnvironmentFile=`).",
    example=Example(
        files={"vllm.service": _UNIT_HEAD + f"ExecStart={_VLLM} --port $PORT --dtype bfloat16\n"},
        argv=("check", "vllm.service"),
    ),
    correct=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + f"Environment=PORT=8000\nExecStart={_VLLM} --port $PORT --dtype bfloat16\n"
        },
        argv=("check", "vllm.service"),
    ),
    basis="assumed",
)

TP065 = Rule(
    code="TP065",
    layer="transport",
    severity="warning",
    title="An `Environment=` assignment systemd ignores",
    rationale=(
        "Each word of `Environment=` must be `NAME=VALUE` after systemd's quoting rules (systemd.exec(5), "
        "`Environment=`; quotes around the whole word or the value are removed). A word without `=` or with "
        "an invalid name (`Environment=VLLM ARGS=...`, a value with blanks not quoted, so its second half "
        "is a word of its own) is dropped with `Invalid environment assignment, ignoring` (systemd 252), "
        "and the server never gets it."
    ),
    fix='Quote the whole assignment when the value has blanks: `Environment="NAME=value with blanks"`.',
    example=Example(
        files={
            "vllm.service": _UNIT_HEAD + f"Environment=VLLM_LOGGING_LEVEL=DEBUG INFO\nExecStart={_VLLM}\n"
        },
        argv=("check", "vllm.service"),
    ),
    correct=Example(
        files={"vllm.service": _UNIT_HEAD + f"Environment=VLLM_LOGGING_LEVEL=DEBUG\nExecStart={_VLLM}\n"},
        argv=("check", "vllm.service"),
    ),
)

TP066 = Rule(
    code="TP066",
    layer="transport",
    severity="error",
    title="A SkyPilot `envs:` entry without a value: `sky launch` refuses the task",
    rationale=(
        "SkyPilot 0.14.1 refuses a task whose `envs:` entry is null (`HF_TOKEN:` with nothing after it, or "
        "only a comment) unless `--env NAME=VALUE` gives it: `ValueError: Environment variable 'HF_TOKEN' "
        "is None. Please set a value for it in task YAML or with --env flag.` (`sky/task.py`, "
        "`Task.from_yaml_config`). Nothing is launched. A null entry under `secrets:` is different: a "
        "secret resolved at launch time. A null entry is also how a task asks for a value at launch "
        "(SkyPilot's examples say `sky launch --env HF_TOKEN task.yaml`), so when argtrace is given no "
        "`--env` at all the `sky launch` line is unknown and the finding is a note (`info`, basis "
        "`assumed`); given `--env` without that name, it is an error."
    ),
    fix="Give the value on the command line (`sky launch --env HF_TOKEN ...`; argtrace: "
    '`argtrace check --env HF_TOKEN=... task.yaml`), or write an empty string (`HF_TOKEN: ""`).',
    example=Example(
        files={"task.yaml": _SKY_HEAD + "  HF_TOKEN:\n\nrun: |\n  vllm serve $MODEL_NAME\n"},
        argv=("check", "task.yaml"),
    ),
    correct=Example(
        files={"task.yaml": _SKY_HEAD + "\nsecrets:\n  HF_TOKEN: null\n\nrun: |\n  vllm serve $MODEL_NAME\n"},
        argv=("check", "task.yaml"),
    ),
)

TP067 = Rule(
    code="TP067",
    layer="transport",
    severity="error",
    title="A SkyPilot variable read where SkyPilot does not set it",
    rationale=(
        "SkyPilot sets different variables for the two scripts of a task (SkyPilot 0.14.1: `run:` gets "
        "`SKYPILOT_NODE_RANK`, `SKYPILOT_NODE_IPS`, `SKYPILOT_NUM_NODES`, `SKYPILOT_NUM_GPUS_PER_NODE` "
        "(`sky/backends/task_codegen.py`); `setup:` gets `SKYPILOT_SETUP_NODE_RANK`, "
        "`SKYPILOT_SETUP_NODE_IPS`, `SKYPILOT_SETUP_NUM_GPUS_PER_NODE` and `SKYPILOT_NUM_NODES` "
        "(`sky/backends/cloud_vm_ray_backend.py`, `_setup`)). A server started in `setup:` with "
        "`--tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE` gets an empty expansion there: the flag takes "
        "the next word, or none (skypilot-org/skypilot#6920)."
    ),
    fix="Use the variable of that script (`$SKYPILOT_SETUP_NUM_GPUS_PER_NODE` in `setup:`), or start the "
    "server in `run:`.",
    example=Example(
        files={
            "task.yaml": _SKY_HEAD
            + "\nsetup: |\n  vllm serve $MODEL_NAME --tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE "
            + "--port 8081\n"
        },
        argv=("check", "task.yaml"),
    ),
    correct=Example(
        files={
            "task.yaml": _SKY_HEAD
            + "\nrun: |\n  vllm serve $MODEL_NAME --tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE "
            + "--port 8081\n"
        },
        argv=("check", "task.yaml"),
    ),
)


TP068 = Rule(
    code="TP068",
    layer="transport",
    severity="warning",
    title="`ExecStart=` names its program without a path while the unit sets its own PATH",
    rationale=(
        "systemd resolves a command that is not an absolute path in a fixed search path chosen when it was "
        'built (`/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin`, systemd.service(5), "Command lines"), '
        "not in the `PATH` the unit sets with `Environment=` or `EnvironmentFile=`: that `PATH` is only the "
        "process's. `Environment=PATH=/opt/venv/bin:...` with `ExecStart=vllm serve ...` fails to start "
        "(`Command vllm is not executable: No such file or directory`, status 203/EXEC; measured with "
        "systemd 252's `systemd-analyze verify`) unless the node also has `vllm` in one of the fixed "
        "directories, which argtrace cannot see."
    ),
    fix="Write the program's absolute path (`ExecStart=/opt/venv/bin/vllm serve ...`).",
    example=Example(
        files={
            "vllm.service": _UNIT_HEAD + "Environment=PATH=/opt/vllm/bin:/usr/bin\nExecStart=vllm serve m\n"
        },
        argv=("check", "vllm.service"),
    ),
    correct=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + "Environment=PATH=/opt/vllm/bin:/usr/bin\nExecStart=/opt/vllm/bin/vllm serve m\n"
        },
        argv=("check", "vllm.service"),
    ),
    basis="assumed",
)


TP069 = Rule(
    code="TP069",
    layer="transport",
    severity="error",
    title="A top-level key SkyPilot's task schema does not have: `sky launch` refuses the task",
    rationale=(
        "SkyPilot validates a task YAML against its schema, which allows no other top-level keys "
        "(`get_task_schema()` in `sky/utils/schemas.py`, `additionalProperties: False`; SkyPilot 0.14.1): "
        "`env:` for `envs:`, `resource:` for `resources:` or `nodes:` for `num_nodes:` stop the launch with "
        "`Invalid task YAML: Additional properties are not allowed`. The values under the misspelt key "
        "reach nothing. A key older releases took (`experimental:`, SkyPilot 0.8.1 and 0.10.0, whose "
        "`config_overrides` became the top-level `config:`) is a warning naming them: which SkyPilot runs "
        "the task is not in the file."
    ),
    fix="Rename the key to the one SkyPilot reads (the message names the nearest).",
    example=Example(
        files={
            "task.yaml": "resources:\n  accelerators: L4:1\nenv:\n  MODEL: m\nrun: |\n  vllm serve $MODEL\n"
        },
        argv=("check", "task.yaml"),
    ),
    correct=Example(
        files={
            "task.yaml": "resources:\n  accelerators: L4:1\nenvs:\n  MODEL: m\nrun: |\n  vllm serve $MODEL\n"
        },
        argv=("check", "task.yaml"),
    ),
)


TP083 = Rule(
    code="TP083",
    layer="transport",
    severity="error",
    title="`$NAME` in `ExecStart=` strips the quotes and backslashes of the variable's value",
    rationale=(
        "A word `$NAME` is replaced by NAME's value split at blanks, and \"for this type of expansion, "
        'quotes are respected when splitting into words, and afterwards removed" (systemd.service(5), '
        '"Command lines"; systemd 252\'s `replace_env_argv` splits with `EXTRACT_RELAX|EXTRACT_UNQUOTE`, '
        "a backslash taking the next character). Quotes that keep a blank inside one word are what the "
        "split is for; quotes that group nothing simply vanish: a JSON value "
        '(`Environment=\'ARGS=--speculative-config {"method":"ngram"}\'`) reaches the server as '
        '`{method:ngram}`, and `a\\\\b\\"c` as `abc` (systemd/systemd#36488, closed as documented '
        "behaviour). argtrace reports it when the split leaves as many words as the value has "
        "blank-separated parts and removes characters from inside one of them (quotes around a whole word "
        "give the same word and are not reported): characters the unit wrote are lost, and a server's JSON "
        "flag then refuses the word (vLLM's PA011, folded under this finding)."
    ),
    fix=(
        "Pass a value of one word with `${NAME}` (its exact value, one argument); in a value of several "
        'options, single-quote the word whose characters must survive (`\'{"method":"ngram"}\'` inside '
        "the value keeps its double quotes)."
    ),
    example=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + 'Environment=\'SPEC={"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}\'\n'
            + f"ExecStart={_VLLM} --speculative-config $SPEC\n"
        },
        argv=("check", "vllm.service"),
    ),
    correct=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + 'Environment=\'SPEC={"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}\'\n'
            + f"ExecStart={_VLLM} --speculative-config ${{SPEC}}\n"
        },
        argv=("check", "vllm.service"),
    ),
)

TP084 = Rule(
    code="TP084",
    layer="transport",
    severity="error",
    title="An `EnvironmentFile=` systemd ignores: quoted or relative, so its variables never arrive",
    rationale=(
        "systemd reads `EnvironmentFile=` as one path, optionally led by `-`, with specifiers resolved and "
        "no quote removal, and drops the setting when the result is not an absolute path (systemd 252's "
        "`config_parse_unit_env_file`: `path_simplify_and_warn(..., PATH_CHECK_ABSOLUTE)`; "
        '`systemd-analyze verify` prints "EnvironmentFile= path is not absolute, ignoring"). '
        '`EnvironmentFile="-%h/.config/sync.env"` (quoted as `Environment=` values may be, '
        "jdx/mise#12683) or `EnvironmentFile=vllm.env` (relative) load nothing: the variables the file "
        "sets, a model path, `HF_TOKEN` or the server's options, are unset in the service."
    ),
    fix="Write the absolute path without quotes (`EnvironmentFile=-/etc/default/vllm`, `-%h/vllm.env`).",
    example=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + 'EnvironmentFile="/etc/default/vllm"\n'
            + "ExecStart=/opt/vllm/bin/vllm serve $MODEL\n"
        },
        argv=("check", "vllm.service"),
    ),
    correct=Example(
        files={
            "vllm.service": _UNIT_HEAD
            + "EnvironmentFile=/etc/default/vllm\n"
            + "ExecStart=/opt/vllm/bin/vllm serve $MODEL\n"
        },
        argv=("check", "vllm.service"),
    ),
)

_FRAGMENT = (
    "services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.9\n"
    "    env_file:\n      - ./services/sglang/override.env\n"
    "    command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000\n"
)

TP106 = Rule(
    code="TP106",
    layer="transport",
    severity="info",
    title="A compose file read as a fragment of the compose project above it",
    rationale=(
        "docker compose reads a file's relative paths and `.env` from the project directory, the directory "
        "of the first `-f` file (compose-go `cli.ProjectOptions`). A file kept beside others and merged "
        "after the project's own compose file (Harbor's `services/compose.sglang.yml`, run as `docker "
        "compose -f compose.yml -f services/compose.sglang.yml`) names its env files from that directory "
        "(`./services/sglang/override.env`). When none of a file's `env_file:` paths is beside it and all "
        "of them are in a directory above it that holds a compose file, argtrace reads the file as that "
        "project's fragment: `.env` and the relative paths from there, not a missing env file (TP016). "
        "The command that merges the files is not in the file: this rests on that assumption."
    ),
    fix=(
        "Nothing to fix if the file is run with the project's compose file first; checked on its own "
        "(`docker compose -f FILE`), its env files are looked for beside it."
    ),
    example=Example(
        files={
            "compose.yml": "services: {}\n",
            "services/sglang/override.env": "HF_HUB_OFFLINE=0\n",
            "services/compose.sglang.yml": _FRAGMENT,
        },
        argv=("check", "services/compose.sglang.yml"),
    ),
    correct=Example(
        files={"services/sglang/override.env": "HF_HUB_OFFLINE=0\n", "compose.sglang.yml": _FRAGMENT},
        argv=("check", "compose.sglang.yml"),
    ),
)


_INCLUDED = (
    "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.1\n    command: >\n"
    "      Qwen/Qwen3-8B\n      --max-model-len 8192\n"
)

TP105 = Rule(
    code="TP105",
    layer="transport",
    severity="error",
    title="A compose file's `include:` names a file that is not there: `docker compose` stops",
    rationale=(
        'A compose file\'s top-level `include:` (Compose Specification, "Include"; docker compose 2.20 and '
        "later) loads each named compose file as an application of its own and merges its services; a "
        "relative path is the including file's project directory's. docker compose reads them before it "
        "starts anything, so a path that is not there stops `docker compose up` and no service starts. "
        "argtrace reads the services of every file an `include:` names (each with its own project "
        "directory's `.env`), and says which one it could not read."
    ),
    fix="Write the path of the compose file as it is from the including file's directory.",
    example=Example(
        files={"compose.yml": "include:\n  - compose-vllm.yml\n"},
        argv=("check", "compose.yml"),
    ),
    correct=Example(
        files={"compose.yml": "include:\n  - compose-vllm.yml\n", "compose-vllm.yml": _INCLUDED},
        argv=("check", "compose.yml"),
    ),
)
