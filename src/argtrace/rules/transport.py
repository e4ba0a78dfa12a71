"""Rules of the transport layer (``TP``): what ssh, uploads, sudo and containers do to a command on its "
"way."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_PY = "/opt/venv/bin/python"
_SERVER = f"{_PY} -m sglang.launch_server --model-path /models/qwen"

_COMPOSE_HEAD = (
    "# modelled on the SGLang service of av/harbor's compose files and vLLM's docker docs\n"
    "services:\n"
    "  vllm:\n"
    "    image: vllm/vllm-openai:latest\n"
    "    ports:\n"
    "      - 8000:8000\n"
    "    ipc: host\n"
)

TP001 = Rule(
    code="TP001",
    layer="transport",
    severity="error",
    title="Variable in an ssh command expanded locally, where it is unset or empty",
    rationale=(
        'Inside double quotes (or unquoted), `$PORT`, `$1` and `$(...)` in `ssh HOST "..."` are expanded by '
        "the shell on *this* machine before ssh runs. A variable set only on the node (or a positional "
        "parameter the script was not given) becomes an empty string, so the node's shell sees `--port` with "
        "the next flag as its value, or nothing at all."
    ),
    fix=(
        "Single-quote the remote command so the node's shell expands it (`ssh gpu1 'python3 ... --port "
        "$PORT'`), "
        "or give the value on this side, or escape the dollar (`\\$PORT`)."
    ),
    example=Example(
        argv=("check", "--clean-env", "-c", f'ssh gpu1 "{_SERVER} --port $PORT --tp 2"'),
    ),
    correct=Example(argv=("check", "--clean-env", "-c", f'ssh gpu1 "{_SERVER} --port 30000 --tp 2"')),
)

TP002 = Rule(
    code="TP002",
    layer="transport",
    severity="info",
    title="Variable in an ssh command expanded on this machine",
    rationale=(
        '`ssh HOST "... $VAR ..."` sends the *local* value of VAR: the node\'s own value (its environment, '
        "its `.bashrc`) is never consulted. Usually intended; worth knowing when the two machines differ."
    ),
    fix="Single-quote the remote command (or write `\\$VAR`) to use the node's value instead.",
    example=Example(argv=("check", "-c", f'PORT=30000; ssh gpu1 "{_SERVER} --port $PORT"')),
    correct=Example(argv=("check", "-c", f'ssh gpu1 "{_SERVER} --port 30000"')),
)

TP003 = Rule(
    code="TP003",
    layer="transport",
    severity="error",
    title="ssh re-splits an argument that contains blanks or shell characters",
    rationale=(
        "ssh does not pass an argv: it joins all remote-command words with single spaces into one string and "
        "the node's login shell parses that string again. "
        '`ssh gpu1 python ... --served-model-name "qwen chat"` '
        "arrives as `--served-model-name qwen chat` (two words); a JSON value loses its quotes; `*`, "
        "`;`, `$` "
        "are interpreted a second time."
    ),
    fix=(
        "Pass the whole remote command as one single-quoted word and quote inside it: "
        "`ssh gpu1 'python ... --served-model-name \"qwen chat\"'` (or build it with `printf %q`)."
    ),
    example=Example(argv=("check", "-c", f'ssh gpu1 {_SERVER} --served-model-name "qwen chat"')),
    correct=Example(argv=("check", "-c", f"ssh gpu1 '{_SERVER} --served-model-name \"qwen chat\"'")),
)

TP004 = Rule(
    code="TP004",
    layer="transport",
    severity="error",
    title="`bash -c` gets only the first word as its command",
    rationale=(
        "`bash -c STRING ARG0 ARG1...` runs STRING; the words after it become `$0`, `$1`, ... of that "
        "string. "
        "`bash -c python3 -m sglang.launch_server --port 30000` (often the result of ssh re-splitting "
        '`bash -c "..."`) runs a bare `python3` and every flag is silently dropped.'
    ),
    fix=(
        "Quote the whole command as one word: `bash -c 'python3 -m sglang.launch_server --port 30000'`; over "
        "ssh quote twice: `ssh gpu1 \"bash -c 'python3 ...'\"`."
    ),
    example=Example(argv=("check", "-c", f"bash -c {_SERVER} --port 30000")),
    correct=Example(argv=("check", "-c", f"bash -c '{_SERVER} --port 30000'")),
)

TP005 = Rule(
    code="TP005",
    layer="transport",
    severity="warning",
    title="Non-interactive ssh: no login environment, another python runs",
    rationale=(
        "`ssh HOST cmd` runs cmd in a non-interactive shell. Ubuntu's and Debian's `~/.bashrc` return "
        "at once "
        "for non-interactive shells, so the conda or venv environment activated there is not active: a bare "
        "`python3`, `sglang` or `vllm` is whatever comes first on the plain PATH (often the system Python "
        "without the framework), and `conda activate` fails because conda's shell function was never loaded."
    ),
    fix=(
        "Use the environment's interpreter by absolute path (`/opt/conda/envs/sglang/bin/python -m ...`), "
        "`conda run -n sglang python ...`, or source conda first: "
        "`source /opt/conda/etc/profile.d/conda.sh && conda activate sglang && python ...`."
    ),
    exceptions=(
        "A bare `python3`, `sglang` or `vllm` over ssh is an `info` resting on an assumption "
        "(`node-environment`): it is wrong only when the framework lives in an environment `~/.bashrc` "
        "activates, and a system Python or an image's with the framework installed is right. "
        "`conda activate` in the remote command is the warning: it fails whatever the node has."
    ),
    example=Example(
        argv=(
            "check",
            "-c",
            'ssh gpu1 "conda activate sglang && python3 -m sglang.launch_server --model-path /models/qwen"',
        )
    ),
    correct=Example(argv=("check", "-c", f'ssh gpu1 "{_SERVER}"')),
)

TP006 = Rule(
    code="TP006",
    layer="transport",
    severity="warning",
    title="sudo resets the server's environment",
    basis="assumed",  # on Debian's default sudoers (data/sudo_defaults.json); a machine's may differ
    rationale=(
        "sudo's default `env_reset` starts the command with a minimal environment: `CUDA_VISIBLE_DEVICES`, "
        "`SGLANG_*`/`VLLM_*` switches, `HF_TOKEN` and a venv's `PATH` exported by the script do not "
        "reach the "
        "server, and `PATH` becomes `secure_path`, even with `-E` or `--preserve-env` (so `sudo python3` is "
        "the python on secure_path, not a venv's). In front of `docker run`, `-e NAME` copies NAME from "
        "docker's own environment, which sudo reset, so the container gets nothing. What argtrace assumes is "
        "Debian 12's sudo and its "
        "default /etc/sudoers, read from the real `sudo -V` (src/argtrace/data/sudo_defaults.json); a "
        "machine's sudoers may differ, so this finding's basis is `assumed`."
    ),
    fix=(
        "Avoid sudo for the server, or pass what it needs explicitly: "
        "`sudo env CUDA_VISIBLE_DEVICES=0 SGLANG_X=1 /opt/venv/bin/python ...` (or `sudo "
        "--preserve-env=LIST`)."
    ),
    example=Example(argv=("check", "-c", f"export CUDA_VISIBLE_DEVICES=0\nsudo {_SERVER}")),
    correct=Example(argv=("check", "-c", f"export CUDA_VISIBLE_DEVICES=0\n{_SERVER}")),
)

TP007 = Rule(
    code="TP007",
    layer="transport",
    severity="error",
    title="Here-document upload expands $1, $VAR and $(...) at upload time",
    rationale=(
        '`ssh HOST "cat > launch.sh" <<EOF` with an unquoted delimiter makes the *local* shell expand the '
        "body while uploading: `$1`, `$2` of the uploaded script become the uploader's (usually empty) "
        "arguments and `$(...)` runs here. The file on the node, which is what later runs, already has "
        "`--port ` with nothing after it."
    ),
    fix="Quote the delimiter so the body is sent verbatim: `<<'EOF'` (or copy the file with scp).",
    example=Example(
        argv=(
            "check",
            "--clean-env",
            "-c",
            'ssh gpu1 "cat > /w/launch.sh" <<EOF\n'
            f"{_SERVER} --port $2 --mamba-scheduler-strategy extra_buffer\n"
            "EOF\n",
        )
    ),
    correct=Example(
        argv=(
            "check",
            "--clean-env",
            "-c",
            "ssh gpu1 \"cat > /w/launch.sh\" <<'EOF'\n"
            f"{_SERVER} --port $2 --mamba-scheduler-strategy extra_buffer\n"
            "EOF\n",
        )
    ),
)

TP008 = Rule(
    code="TP008",
    layer="transport",
    severity="error",
    title="A file with CRLF line endings is copied to the node",
    rationale=(
        "scp and rsync copy bytes: a script saved with Windows line endings keeps them on the node, "
        "where bash "
        "reads `30000\\r` as the port, `\\` before `\\r` no longer continues a line, and `#!/bin/bash\\r` "
        "names an interpreter that does not exist."
    ),
    fix="Convert before copying (`sed -i 's/\\r$//' launch.sh` or `dos2unix launch.sh`).",
    example=Example(
        files={"launch.sh": f"#!/bin/bash\r\n{_SERVER} \\\r\n  --port 30000\r\n".encode()},
        argv=("check", "-c", "scp -P 19248 launch.sh root@gpu1:/w/launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": f"#!/bin/bash\n{_SERVER} \\\n  --port 30000\n"},
        argv=("check", "-c", "scp -P 19248 launch.sh root@gpu1:/w/launch.sh"),
    ),
)

TP009 = Rule(
    code="TP009",
    layer="transport",
    severity="warning",
    title="Server backgrounded over ssh with its output still on the session",
    rationale=(
        '`ssh HOST "nohup server &"` returns only when every process holding the session\'s stdout/stderr '
        "has closed them: a background server that still writes to them keeps ssh waiting (the terminal "
        "hangs), and when the connection is cut its writes fail."
    ),
    fix="Redirect all output away from the session: `ssh gpu1 'nohup python ... > /w/server.log 2>&1 < "
    "/dev/null &'`.",
    example=Example(argv=("check", "-c", f'ssh gpu1 "nohup {_SERVER} &"')),
    correct=Example(argv=("check", "-c", f'ssh gpu1 "nohup {_SERVER} > /w/server.log 2>&1 < /dev/null &"')),
)

TP010 = Rule(
    code="TP010",
    layer="transport",
    severity="error",
    title="The image's entrypoint is prepended to the container's command",
    rationale=(
        "Arguments after the image name (`docker run IMAGE ARGS`, compose `command:`, Kubernetes "
        "`args:`) are "
        "appended to the image's ENTRYPOINT. `vllm/vllm-openai` already runs `vllm serve`, so "
        "`docker run vllm/vllm-openai vllm serve Qwen/Qwen3-8B` runs `vllm serve vllm serve Qwen/Qwen3-8B`: "
        "`vllm` becomes the model name and the rest is rejected."
    ),
    fix=(
        "Pass only the model and flags after the image (`docker run vllm/vllm-openai Qwen/Qwen3-8B "
        "--port 8000`), "
        "or replace the entrypoint explicitly (`--entrypoint`, compose `entrypoint:`, Kubernetes `command:`)."
    ),
    example=Example(
        argv=(
            "check",
            "-c",
            "docker run --gpus all -p 8000:8000 vllm/vllm-openai:latest vllm serve Qwen/Qwen3-8B",
        )
    ),
    correct=Example(
        argv=("check", "-c", "docker run --gpus all -p 8000:8000 vllm/vllm-openai:latest Qwen/Qwen3-8B")
    ),
)

TP011 = Rule(
    code="TP011",
    layer="transport",
    severity="error",
    title="A flag and its value in one list item of compose/Kubernetes",
    rationale=(
        "In the list form of compose `command:`/`entrypoint:` and Kubernetes `command:`/`args:` every "
        "item is "
        "exactly one argv word; no shell splits it. `- --dtype auto` hands the server the single argument "
        "`'--dtype auto'`, which argparse rejects as unrecognized."
    ),
    fix="One item per word (`- --dtype` then `- auto`), or `- --dtype=auto`.",
    example=Example(
        files={"compose.yaml": _COMPOSE_HEAD + "    command:\n      - Qwen/Qwen3-8B\n      - --dtype auto\n"},
        argv=("check", "compose.yaml"),
    ),
    correct=Example(
        files={
            "compose.yaml": _COMPOSE_HEAD
            + "    command:\n      - Qwen/Qwen3-8B\n      - --dtype\n      - auto\n"
        },
        argv=("check", "compose.yaml"),
    ),
)

_POD = (
    "# modelled on the Kubernetes deployment examples in vLLM's and SGLang's docs\n"
    "apiVersion: v1\n"
    "kind: Pod\n"
    "metadata:\n"
    "  name: sglang\n"
    "spec:\n"
    "  containers:\n"
    "    - name: server\n"
    "      image: lmsysorg/sglang:latest\n"
    "      command: [python3, -m, sglang.launch_server]\n"
    "      args: [--model-path, /models/qwen, --port, $(SERVER_PORT)]\n"
)

TP012 = Rule(
    code="TP012",
    layer="transport",
    severity="error",
    title="Unresolved variable in a compose file or Kubernetes manifest",
    rationale=(
        "Compose replaces an unset `${VAR}` with an empty string (a flag loses its value); in a string "
        "`command:` it interpolates before splitting, so the unquoted word vanishes, and since compose reads "
        "the environment of the shell that runs it, a variable merely not set here is a warning resting on "
        "that assumption (the parser's findings about the lost word are its notes). Kubernetes "
        "expands "
        "`$(VAR)` in `command`/`args` only from the container's earlier `env` entries with a literal "
        "`value`; "
        "anything else is left as the literal text `$(VAR)`, which the server then receives."
    ),
    fix=(
        "Define the variable (compose: in the environment or the `.env` file next to the compose file; "
        "Kubernetes: an `env` entry with a `value` listed before use), or write the value directly."
    ),
    example=Example(files={"pod.yaml": _POD}, argv=("check", "pod.yaml")),
    correct=Example(
        files={
            "pod.yaml": _POD.replace(
                "      command:",
                '      env:\n        - name: SERVER_PORT\n          value: "30000"\n      command:',
            )
        },
        argv=("check", "pod.yaml"),
    ),
)

TP013 = Rule(
    code="TP013",
    layer="transport",
    severity="error",
    title="Shell syntax in an exec-form command",
    rationale=(
        "A compose `command:` (a list, or a string compose splits into words itself), a Kubernetes "
        "`command`/`args` list and `docker run` arguments are passed "
        "to the program as argv; no shell runs. `&&`, `|`, `>`, `2>&1` and `$VAR` are handed to the "
        "server as "
        "literal arguments instead of being interpreted."
    ),
    fix=(
        'Run a shell explicitly when you need one: `command: ["bash", "-c", "cd /w && exec python3 ..."]`, '
        "or drop the shell syntax."
    ),
    example=Example(
        files={
            "compose.yaml": _COMPOSE_HEAD
            + '    command: [Qwen/Qwen3-8B, --port, "8000", ">", /logs/vllm.log]\n'
        },
        argv=("check", "compose.yaml"),
    ),
    correct=Example(
        files={"compose.yaml": _COMPOSE_HEAD + '    command: [Qwen/Qwen3-8B, --port, "8000"]\n'},
        argv=("check", "compose.yaml"),
    ),
)

TP014 = Rule(
    code="TP014",
    layer="transport",
    severity="warning",
    title="tmux runs the server with the tmux server's environment, not the script's exports",
    rationale=(
        "A command started by `tmux new-session`/`new-window` or typed by `tmux send-keys` is run by the "
        "tmux "
        "*server*. When a tmux server is already running (any earlier session), the new shell gets that "
        "server's global environment plus a few `update-environment` variables: `CUDA_VISIBLE_DEVICES`, "
        "`SGLANG_*` or a venv's `PATH` exported by this script are silently missing."
    ),
    fix=(
        "Pass the variables into the session: `tmux new -d -e CUDA_VISIBLE_DEVICES=0 '...'` (tmux >= 3.0), "
        "or set them inside the command: `tmux new -d 'CUDA_VISIBLE_DEVICES=0 python3 -m ...'`."
    ),
    example=Example(
        argv=("check", "-c", f"export CUDA_VISIBLE_DEVICES=0\ntmux new-session -d -s sglang '{_SERVER}'")
    ),
    correct=Example(
        argv=(
            "check",
            "-c",
            "export CUDA_VISIBLE_DEVICES=0\n"
            f"tmux new-session -d -s sglang -e CUDA_VISIBLE_DEVICES=0 '{_SERVER}'",
        )
    ),
)

TP015 = Rule(
    code="TP015",
    layer="transport",
    severity="error",
    title="On the node, the server's interpreter is missing or lacks the framework",
    rationale=(
        "With `argtrace --host NODE check`, argtrace looks on the node for the program the script's "
        "`python3` (or `vllm`) is for a non-interactive shell, and reads that interpreter's site-packages "
        "for the framework (its files only: nothing named by the script runs on the node). A "
        "conda or venv environment activated in `~/.bashrc` is not active there, so `python3` is often the "
        "system Python, which fails at once with `No module named sglang`."
    ),
    fix=(
        "Name the environment's interpreter by path (`/opt/conda/envs/sglang/bin/python -m ...`), set `PATH` "
        "in the script, or use `conda run -n ENV`."
    ),
    example=Example(
        files={"launch.sh": "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m\n"},
        argv=("--host", "{sshd}", "check", "{cwd}/launch.sh"),
        # run by tests/transport/test_remote_cli.py against its private sshd ({sshd}: host and -o options,
        # {cwd}: the example's directory, which the node sees because it is this machine)
        needs=("sshd-fixture",),
    ),
)

TP016 = Rule(
    code="TP016",
    layer="transport",
    severity="error",
    title="An env file the container needs is missing, unreadable or malformed",
    rationale=(
        "`docker run --env-file FILE` and a compose service's `env_file:` are read by the docker client "
        "before the container exists. A missing file stops `docker run` (`open FILE: no such file or "
        "directory`) and `docker compose up` (`env file FILE not found`) unless the compose entry says "
        "`required: false`; a line docker cannot parse (a name with a blank, invalid UTF-8, an unterminated "
        "quote for compose) stops them too. The variables the server was meant to get (`HF_TOKEN`, "
        "`SGLANG_*`, `VLLM_*`) never arrive, and nothing starts. Relative paths are the usual cause: docker "
        "reads them from the directory it is run in, compose from the compose file's directory."
    ),
    fix=(
        "Create the file or correct its path (with `argtrace --host NODE check`, the node's file is read), "
        "fix the line named in the message, or for compose mark an optional file "
        "`env_file: [{path: ./local.env, required: false}]`."
    ),
    example=Example(
        files={"compose.yaml": _COMPOSE_HEAD + "    env_file: vllm.env\n    command: [Qwen/Qwen3-8B]\n"},
        argv=("check", "compose.yaml"),
    ),
    correct=Example(
        files={
            "compose.yaml": _COMPOSE_HEAD + "    env_file: vllm.env\n    command: [Qwen/Qwen3-8B]\n",
            "vllm.env": "# read by docker compose, not by a shell\nVLLM_LOGGING_LEVEL=DEBUG\n",
        },
        argv=("check", "compose.yaml"),
    ),
)

TP017 = Rule(
    code="TP017",
    layer="transport",
    severity="warning",
    title="A quoted value in a `docker run --env-file` keeps its quotes",
    rationale=(
        "docker reads `--env-file` lines as `NAME=VALUE` and passes everything after the first `=` through "
        "unchanged: no quote removal, no `#` comments after the value, no `$VAR` expansion (docker/cli "
        '`opts.ParseEnvFile`). `SGLANG_ENABLE_SPEC_V2="1"` gives the server the three characters `"1"`: '
        "SGLang warns and uses the default, false (0.5.10.post1 `sglang/srt/environ.py` `EnvBool.parse`, "
        "`EnvField.get`), and vLLM's `bool(int(os.getenv(...)))` flags raise ValueError (0.33.0 "
        "`vllm/envs.py`); a quoted path or model name is not found. The same file used as a compose "
        "`env_file:` (or sourced by a shell) loses its quotes, so it can work in one place and not in the "
        "other."
    ),
    fix="Remove the quotes in files meant for `docker run --env-file` (write `NAME=value with blanks`).",
    example=Example(
        files={"sglang.env": '# from a .env written for compose\nSGLANG_ENABLE_SPEC_V2="1"\n'},
        argv=(
            "check",
            "-c",
            "docker run --gpus all --env-file sglang.env lmsysorg/sglang:latest "
            "python3 -m sglang.launch_server --model-path /models/qwen",
        ),
    ),
    correct=Example(
        files={"sglang.env": "# docker passes values as written\nSGLANG_ENABLE_SPEC_V2=1\n"},
        argv=(
            "check",
            "-c",
            "docker run --gpus all --env-file sglang.env lmsysorg/sglang:latest "
            "python3 -m sglang.launch_server --model-path /models/qwen",
        ),
    ),
)

_DEEP_CONFIGMAP = (
    "# a generated document with a value nested 120 lists deep\n"
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: generated}\n"
    "data: {layout: " + "[" * 120 + "]" * 120 + "}\n"
)
_POD = (
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: vllm}\nspec:\n  containers:\n"
    "    - name: vllm\n      image: vllm/vllm-openai:latest\n      args: [Qwen/Qwen3-8B, --port, '8000']\n"
)

TP018 = Rule(
    code="TP018",
    layer="transport",
    severity="warning",
    title="A manifest document nests too deep to be read",
    rationale=(
        "A YAML document of the compose file or Kubernetes manifest nests its mappings and lists deeper than "
        "100 levels (no hand-written manifest comes near: a CronJob's env entry sits at about 12). argtrace "
        "skips that document, so a container it declares is not checked, and reads the documents after it "
        "(a `---`-separated stream). The finding names the line where the limit was crossed."
    ),
    fix=(
        "Nothing to fix when the document is generated data; check a server it declares with its own file. "
        "A document nested this deep by mistake usually has unbalanced `[`/`{` brackets."
    ),
    example=Example(files={"pod.yaml": _DEEP_CONFIGMAP + _POD}, argv=("check", "--no-resolve", "pod.yaml")),
    correct=Example(
        files={"pod.yaml": _DEEP_CONFIGMAP.replace("[" * 120 + "]" * 120, "[rows, columns]") + _POD},
        argv=("check", "--no-resolve", "pod.yaml"),
    ),
)

_QUOTED_ITEM = _COMPOSE_HEAD + "    environment:\n      - HF_HOME={home}\n    command: [Qwen/Qwen3-8B]\n"

TP019 = Rule(
    code="TP019",
    layer="transport",
    severity="warning",
    title="A compose list-form `environment` item keeps the quotes of its value",
    rationale=(
        "In the list form of a compose service's `environment:` each item is `NAME=VALUE`, and compose "
        "passes everything after the first `=` as written: compose-go splits the item there and unquotes "
        "nothing (`types/mapping.go`, `MappingWithEquals.DecodeMapstructure`). The compose specification "
        'removes quotes only in `env_file:` files (`VAR="VAL"` -> `VAL`, `05-services.md`, Env_file '
        'format); its `environment:` section has no such rule. `- LMCACHE_CONFIG_FILE="/cfg/lmcache.yaml"` '
        "gives the server a path that starts and ends with a quote character, which no file has "
        "(LMCache/LMCache#906); a quoted number or boolean does not parse. YAML's own quotes around the "
        'whole item (`- "NAME=value"`) or around a map value (`NAME: "value"`) are removed by YAML, '
        "not kept."
    ),
    fix="Write the item without the quotes (`- NAME=value with blanks`), or use the map form "
    '(`NAME: "value"`).',
    example=Example(
        files={"compose.yaml": _QUOTED_ITEM.format(home='"/models/hf"')}, argv=("check", "compose.yaml")
    ),
    correct=Example(
        files={"compose.yaml": _QUOTED_ITEM.format(home="/models/hf")}, argv=("check", "compose.yaml")
    ),
)

TP020 = Rule(
    code="TP020",
    layer="transport",
    severity="warning",
    title="A `docker run` option written after the image name",
    rationale=(
        "docker reads its own options only before the image: `docker container run [OPTIONS] IMAGE [COMMAND] "
        "[ARG...]` (Docker's CLI reference, docker container run). Every word after the image is the "
        "container's command and its arguments, so an option of `docker run` written there "
        "(`--entrypoint vllm`, `--gpus all`, `--ipc=host`) is not applied: it reaches the container's "
        'program, which runs it as a command or, being SGLang or vLLM, refuses it ("unrecognized '
        'arguments"). Only the long options of `docker run --help` that no bundled SGLang or vLLM release '
        "has, nor any of its options starts with, are read this way "
        "(`src/argtrace/data/docker_run_options.json`, generated by `scripts/gen_docker_run_options.py`), "
        "and only as the first word after the image or in a command that starts SGLang or vLLM: another "
        "program (`python train.py --name x`) may take such a word as its own. "
        "Example: llm-d/llm-d-inference-sim#533."
    ),
    fix="Move the option (and its value) before the image name.",
    example=Example(
        files={},
        argv=("check", "-c", "docker run --rm vllm/vllm-openai:v0.11.0 --ipc=host --model Qwen/Qwen3-8B"),
    ),
    correct=Example(
        files={},
        argv=("check", "-c", "docker run --rm --ipc=host vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B"),
    ),
)

_FOLDED = """apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.11.0
      command: ["/bin/sh", "-c"]
      args:
        - {style}
          vllm serve Qwen/Qwen3-8B \\
          --max-model-len 8192
"""

TP021 = Rule(
    code="TP021",
    layer="transport",
    severity="error",
    title="A folded YAML block (`>`) holds a command continued with backslashes",
    rationale=(
        "A folded block scalar (`>`, `>-`) joins its lines with a space (YAML 1.2, 8.1.3 Folded Style, "
        "6.5 Line Folding), so the `\\` that ends a line is followed by a space, not a newline. The shell "
        "(`sh -c`) or compose's own splitting then reads `\\ ` as an escaped space (POSIX shell, 2.2.1 "
        "Escape Character): the next flag becomes one word with a leading space, ` --model`, which argparse "
        'takes for a positional ("unrecognized arguments"). A literal block (`|`, `|-`) keeps the newlines, '
        "so the backslashes continue the line; a folded block needs no backslashes at all. "
        "Example: ai-dynamo/dynamo#14321."
    ),
    fix="Write the block as a literal scalar (`|-`), or drop the trailing backslashes.",
    example=Example(
        files={"pod.yaml": _FOLDED.format(style=">-")}, argv=("check", "--no-resolve", "pod.yaml")
    ),
    correct=Example(
        files={"pod.yaml": _FOLDED.format(style="|-")}, argv=("check", "--no-resolve", "pod.yaml")
    ),
)

_RUNTIME = """apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-runtime
spec:
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
      args:
        - --port=8080
        - --model=/mnt/models
        - {item}
  supportedModelFormats:
    - name: vLLM
"""

TP022 = Rule(
    code="TP022",
    layer="transport",
    severity="warning",
    title="A list item gives a flag an empty value (`--flag=`)",
    rationale=(
        "In the list form of compose `command:`/`entrypoint:` and Kubernetes `command`/`args` an item is "
        "one argv word, and argparse reads `--flag=VALUE` as the flag with what follows `=`: `--flag=` gives "
        "it the empty string. Nobody writes that on purpose; a template that rendered to nothing does. Helm "
        "renders every `{{ ... }}` in a chart before the cluster sees it, KServe's own `{{.Name}}` of a "
        "ServingRuntime included, so `--served-model-name={{.Name}}` in a chart reaches vLLM as "
        "`--served-model-name=` and the model is served under the empty name. "
        "Example: noelo/vllm-router-demo#2."
    ),
    fix=(
        "Write the value after `=`. In a Helm chart, escape a template meant for KServe so that Helm leaves "
        'it: `{{ "{{" }} .Name {{ "}}" }}`.'
    ),
    example=Example(
        files={"runtime.yaml": _RUNTIME.format(item="--served-model-name=")},
        argv=("check", "--no-resolve", "runtime.yaml"),
    ),
    correct=Example(
        files={"runtime.yaml": _RUNTIME.format(item="--served-model-name={{.Name}}")},
        argv=("check", "--no-resolve", "runtime.yaml"),
    ),
)

_POD_ARGS = """apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.11.0
      args: [{args}]
"""

TP023 = Rule(
    code="TP023",
    layer="transport",
    severity="warning",
    title="A `docker run` option in a manifest's command or args",
    rationale=(
        "`--shm-size`, `--ipc=host`, `--network=host`, `--gpus`, `--privileged` and `--runtime` are options "
        "of `docker run`: docker reads them before the image and sets up the container with them. A compose "
        "file or a Kubernetes manifest has no docker reading its `command`/`args`: the words go to the "
        "container's program as arguments, and the container gets none of the settings. Shared memory is "
        "the one that hurts: without `shm_size:` (compose) or an `emptyDir` with `medium: Memory` at "
        "/dev/shm (Kubernetes), /dev/shm stays the runtime's 64 MiB, and NCCL between tensor-parallel "
        "workers fails to create its segments. Where each carrier keeps the setting is generated into "
        "`src/argtrace/data/docker_run_options.json` (`carried_by`) by `scripts/gen_docker_run_options.py`, "
        "from the Compose file reference and the Kubernetes Pod API. Example: kserve/kserve#3791."
    ),
    fix="Drop the item and set the container itself (compose `shm_size:`/`ipc: host`; Kubernetes an "
    "`emptyDir` with `medium: Memory` at /dev/shm, `hostIPC: true`).",
    example=Example(
        files={
            "pod.yaml": _POD_ARGS.format(args='Qwen/Qwen3-8B, --tensor-parallel-size, "2", --shm-size=16g')
        },
        argv=("check", "--no-resolve", "pod.yaml"),
    ),
    correct=Example(
        files={"pod.yaml": _POD_ARGS.format(args='Qwen/Qwen3-8B, --tensor-parallel-size, "2"')},
        argv=("check", "--no-resolve", "pod.yaml"),
    ),
)

TP024 = Rule(
    code="TP024",
    layer="transport",
    severity="error",
    title="`docker run --gpus device=0,1` without the inner quotes",
    rationale=(
        "The docker CLI reads the value of `--gpus` as one line of CSV (docker/cli `opts/gpus.go`), so "
        "`device=0,1` is two fields: `device=0`, and a bare `1` that it takes for a GPU count. The daemon "
        "refuses a device request with both a count and device IDs (moby `daemon/nvidia_linux.go`: "
        '"cannot set both Count and DeviceIDs on device request"), and the container never starts. The shell '
        'removes one level of quotes, so `--gpus "device=0,1"` fails the same way; '
        "`--gpus '\"device=0,1\"'` hands docker the double quotes, which keep the list one field. A bare "
        "field that is no count (`device=GPU-a,GPU-b`), a key given twice and an unknown key are the CLI's "
        "own refusals. Example: NVIDIA/nvidia-docker#1026."
    ),
    fix="Quote the device list for docker: `--gpus '\"device=0,1\"'`.",
    example=Example(
        argv=(
            "check",
            "--no-resolve",
            "-c",
            "docker run --gpus device=0,1 --ipc=host vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B -tp 2",
        )
    ),
    correct=Example(
        argv=(
            "check",
            "--no-resolve",
            "-c",
            "docker run --gpus '\"device=0,1\"' --ipc=host vllm/vllm-openai:v0.11.0 "
            "--model Qwen/Qwen3-8B -tp 2",
        )
    ),
)

_SCRIPT_ENTRYPOINT = """services:
  vllm:
    image: vllm/vllm-openai:v0.12.0
    entrypoint:
      - bash
      - -c
      - |
        ARGS=(--port 8000)
        exec vllm serve Qwen/Qwen3-0.6B "{args}"
"""

TP025 = Rule(
    code="TP025",
    layer="transport",
    severity="error",
    title="A `$` compose cannot interpolate: the whole file is refused",
    rationale=(
        "Compose interpolates every value of the file before it creates anything, with its own template "
        "grammar, not a shell's: compose-go (`template/template.go`) reads `$$` (a literal `$`), `$NAME` "
        "and `${NAME}` with the `:-`, `-`, `:?`, `?`, `:+`, `+` forms, and any other `$` (`$@`, `$1`, "
        '`$(...)`, `${ARGS[@]}`) matches its `invalid` branch: `docker compose` stops with "invalid '
        'interpolation format for services.S.entrypoint.[]. You may need to escape any $ with another $." '
        "(`interpolation/interpolation.go`). A shell script in a `sh -c` item meant that `$` for the "
        "container's shell (noonghunna/club-3090#429)."
    ),
    fix="Write `$$` for each `$` the container's shell should see (compose turns `$$` into `$`).",
    example=Example(
        files={"compose.yaml": _SCRIPT_ENTRYPOINT.format(args="${ARGS[@]}")}, argv=("check", "compose.yaml")
    ),
    correct=Example(
        files={"compose.yaml": _SCRIPT_ENTRYPOINT.format(args="$${ARGS[@]}")}, argv=("check", "compose.yaml")
    ),
)

_DOTENV_COMPOSE = """services:
  vllm:
    image: vllm/vllm-openai:v0.12.0
    volumes:
      - ${MODEL_DIR:-./models}:/root/.cache/huggingface
    command: ["Qwen/Qwen3-0.6B", "--port", "8000"]
"""

TP026 = Rule(
    code="TP026",
    layer="transport",
    severity="warning",
    title="A name in `.env` the compose file reads under another spelling",
    rationale=(
        "Compose reads the `.env` beside the file only to fill the file's own `${NAME}` references; a "
        "container gets nothing from it unless `environment:` or `env_file:` passes it (Compose docs, "
        '"Set environment variables" and "Interpolation"). A name `.env` sets that the file never reads '
        "reaches nothing: written `MODELS_DIR` where the file reads `${MODEL_DIR:-...}`, the default is "
        "used (noonghunna/club-3090#7); written `TOKEN={telegram_bot_token}` without the `$`, the "
        "container gets the braces as text (danimart1991/jackett2telegram#7)."
    ),
    fix="Use the name the file reads (rename it in `.env`), or write the reference with its `$`.",
    example=Example(
        files={"compose.yaml": _DOTENV_COMPOSE, ".env": "MODELS_DIR=/data/models\n"},
        argv=("check", "compose.yaml"),
    ),
    correct=Example(
        files={"compose.yaml": _DOTENV_COMPOSE, ".env": "MODEL_DIR=/data/models\n"},
        argv=("check", "compose.yaml"),
    ),
)

TP027 = Rule(
    code="TP027",
    layer="transport",
    severity="info",
    title="Names in `.env` that no container gets",
    rationale=(
        '`.env` fills only the compose file\'s `${NAME}` references (Compose docs, "Interpolation"): a '
        "name it sets that no reference, no bare `environment:` entry and no `env_file: .env` reads reaches "
        "no container (browser-use/web-ui#396: `OLLAMA_ENDPOINT` in `.env`, not in `environment:`). An "
        "info, not a warning: a project's `.env` often holds values for its scripts too."
    ),
    fix="Pass what a container needs: `- NAME=${NAME}` under its `environment:`, or `env_file: .env`.",
    example=Example(
        files={"compose.yaml": _DOTENV_COMPOSE, ".env": "VLLM_LOGGING_LEVEL=DEBUG\n"},
        argv=("check", "compose.yaml"),
    ),
    correct=Example(
        files={
            "compose.yaml": _DOTENV_COMPOSE.replace(
                "    command:",
                "    environment:\n      - VLLM_LOGGING_LEVEL=${VLLM_LOGGING_LEVEL}\n    command:",
            ),
            ".env": "VLLM_LOGGING_LEVEL=DEBUG\n",
        },
        argv=("check", "compose.yaml"),
    ),
)

_IFNAME_SCRIPT = (
    "#!/bin/bash\n"
    "# one node of a two-node vLLM launch (vLLM's multi-node docs: --nnodes, --node-rank, --master-addr)\n"
    "export NCCL_SOCKET_IFNAME=^lo,docker\n"
    "export GLOO_SOCKET_IFNAME={gloo}\n"
    "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 10.0.0.1\n"
)

TP030 = Rule(
    code="TP030",
    layer="transport",
    severity="error",
    title="GLOO_SOCKET_IFNAME or NCCL_SOCKET_IFNAME that names no interface by its own grammar",
    rationale=(
        "torch splits `GLOO_SOCKET_IFNAME` at commas and Gloo looks each part up as a whole interface name "
        "(torch/csrc/distributed/c10d/init.cpp, gloo/transport/tcp/device.cc): NCCL's `^lo,docker` "
        "exclusion list or `=eth0` exact match, or an IP address, names no interface, and the first Gloo "
        'group (SGLang and vLLM build one on every start) stops with "Unable to find address for: ^lo" '
        "(aws-samples/aws-do-eks#51). `NCCL_SOCKET_IFNAME` takes interface name prefixes (`^` excludes, `=` "
        "is exact): an address matches no name and NCCL's bootstrap stops with \"no socket interface "
        'found".'
    ),
    fix="Give GLOO_SOCKET_IFNAME the interface's own name (`ip -o -4 addr` lists them) and keep NCCL's "
    "`^...` list for NCCL_SOCKET_IFNAME.",
    example=Example(
        files={"node.sh": _IFNAME_SCRIPT.format(gloo="^lo,docker")}, argv=("check", "--no-resolve", "node.sh")
    ),
    correct=Example(
        files={"node.sh": _IFNAME_SCRIPT.format(gloo="eth0")}, argv=("check", "--no-resolve", "node.sh")
    ),
    exceptions="A value the node computes (`$(ip -4 route get $HEAD | ...)`) is not known statically and not "
    "judged; neither is whether the named interface exists on the node.",
)

TP033 = Rule(
    code="TP033",
    layer="transport",
    severity="error",
    title="A `docker -e` variable name with a blank in it",
    rationale=(
        '`docker run -e " HF_TOKEN=..."` (a blank typed after the quote, or `-e "NAME =v"`) sets a '
        "variable whose name holds the blank: docker/cli's `opts.ValidateEnv` checks only that the name is "
        "not empty and passes it on as written (`opts/env.go`), so the server's process never gets the "
        "variable meant and runs with its default, or without the token."
    ),
    fix="Delete the blank: `-e NAME=VALUE` (quote the value alone if it has blanks).",
    example=Example(
        argv=(
            "check",
            "-c",
            "docker run --gpus all -e ' SGLANG_ENABLE_SPEC_V2=1' lmsysorg/sglang:v0.5.10.post1 "
            "python3 -m sglang.launch_server --model-path /m",
        )
    ),
    correct=Example(
        argv=(
            "check",
            "-c",
            "docker run --gpus all -e 'SGLANG_ENABLE_SPEC_V2=1' lmsysorg/sglang:v0.5.10.post1 "
            "python3 -m sglang.launch_server --model-path /m",
        )
    ),
)
