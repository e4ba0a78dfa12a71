"""Rules of wrappers, images and Kubernetes pods around the server (issue 17): SH040-SH049, TP040-TP049,
PR040-PR049."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_HEAD = "#!/bin/bash\n"
_SERVER = "python3 -m sglang.launch_server --model-path /models/qwen"

SH040 = Rule(
    code="SH040",
    layer="shell",
    severity="info",
    title="A server start argtrace does not follow",
    rationale=(
        "The command looks like it starts a server (`python -m sglang.launch_server`, `vllm serve`, "
        "`python -m sglang_router.launch_router`...) but runs it through a program or entrypoint argtrace "
        "does not read (`mpirun`, `ray job submit`, `docker exec`, `kubectl exec`, the SGLang router run "
        "alone): its arguments and environment are not checked. This is not "
        '"no server found": the server may well start, unchecked. A note, about argtrace\'s reach: it says '
        "nothing is known of that start, not that it fails (a correct launch through such a program got a "
        "warning). (`nsys profile`/`nsys launch` are followed when their switches are written as the Nsight "
        "Systems guide writes them: `-s VALUE`, `--sample=VALUE`.)"
    ),
    fix="Check the server command itself (`argtrace check -c '...'`), or start it directly in the script.",
    example=Example(
        files={"launch.sh": _HEAD + "mpirun -np 2 " + _SERVER + "\n"}, argv=("check", "launch.sh")
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh")),
)

SH041 = Rule(
    code="SH041",
    layer="shell",
    severity="error",
    title="A NAME=VALUE word after a wrapper is run as the program",
    rationale=(
        "Only the shell reads `NAME=VALUE` in front of a command as an assignment (and `env`, `sudo` after "
        "their own options). `nohup`, `timeout`, `nice`, `setsid`, `stdbuf`, `taskset`, `numactl`, `chrt`, "
        "`ionice`, GNU `time`, `exec` and `command` hand the word after their options to execvp as the "
        "program to run: `nohup CUDA_VISIBLE_DEVICES=0 python ...` looks for a program named "
        "`CUDA_VISIBLE_DEVICES=0`, exits with status 127, and the server never starts (coreutils nohup: "
        '"failed to run command"; tried with each program on Debian 12).'
    ),
    fix="Put the assignment before the wrapper (`CUDA_VISIBLE_DEVICES=0 nohup ...`), or run it through `env` "
    "(`nohup env CUDA_VISIBLE_DEVICES=0 ...`).",
    example=Example(
        files={"launch.sh": _HEAD + "nohup CUDA_VISIBLE_DEVICES=0 " + _SERVER + " &\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + "CUDA_VISIBLE_DEVICES=0 nohup " + _SERVER + " &\n"},
        argv=("check", "launch.sh"),
    ),
)

SH046 = Rule(
    code="SH046",
    layer="shell",
    severity="info",
    title="The script starts no server here because a caller's variable or its arguments are not given",
    rationale=(
        'A launch script that checks a variable it does not set itself (`if [ -z "$HF_TOKEN" ]; then exit '
        "1; fi`) stops before its server start when that variable is not set where argtrace runs. On the "
        "node it is usually set, so the server start after the check is what the script does there: "
        "argtrace reads it again as if the variable were set (its value unknown) and says so, instead of "
        "reporting that the script starts no server. The other variables of the caller the script reads "
        "past that check are unknown too, not empty. The same holds for a server only such a variable "
        'selects (`if [[ "$ENGINE" == vllm ]]; then vllm serve ...; fi`), and for a script that needs '
        "its arguments (`[[ $# -lt 3 ]] && exit 2`) when `check` is given none: it is read with `$1`, "
        "`$@`, `$#` unknown, as `argtrace lint` reads every script."
    ),
    fix="Give the variable its value with `--env NAME=VALUE`, or the script's arguments after its path, to "
    "check the launch as it runs on the node.",
    example=Example(
        files={
            "launch.sh": _HEAD + 'if [ -z "$ARGTRACE_EXAMPLE_TOKEN" ]; then\n  exit 1\nfi\n' + _SERVER + "\n"
        },
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={
            "launch.sh": _HEAD + 'if [ -z "$ARGTRACE_EXAMPLE_TOKEN" ]; then\n  exit 1\nfi\n' + _SERVER + "\n"
        },
        argv=("check", "--env", "ARGTRACE_EXAMPLE_TOKEN=t", "launch.sh"),
    ),
)

SH042 = Rule(
    code="SH042",
    layer="shell",
    severity="warning",
    title="A variable given to a script is set again by the script for its server",
    rationale=(
        "`CUDA_VISIBLE_DEVICES=2,3 bash launch.sh` (or an `export` before it) gives the script a value, but "
        "an assignment in the script that does not read it (`CUDA_VISIBLE_DEVICES=${gpu_id} sglang serve "
        "...`) replaces it for the server: bash passes the command's own assignment, so the caller's value "
        "never arrives (deepseek-ai/DeepSpec#36: eight workers on GPUs 0-7 instead of two on 2,3)."
    ),
    fix="Derive the script's value from the caller's (`${NAME:-DEFAULT}`), or set it only in one place.",
    example=Example(
        files={
            "launch.sh": _HEAD + "CUDA_VISIBLE_DEVICES=0 " + _SERVER + " &\n",
            "run.sh": _HEAD + "CUDA_VISIBLE_DEVICES=2,3 bash launch.sh\n",
        },
        argv=("check", "run.sh"),
    ),
    correct=Example(
        files={
            "launch.sh": _HEAD + "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} " + _SERVER + " &\n",
            "run.sh": _HEAD + "CUDA_VISIBLE_DEVICES=2,3 bash launch.sh\n",
        },
        argv=("check", "run.sh"),
    ),
)

SH043 = Rule(
    code="SH043",
    layer="shell",
    severity="warning",
    title="A sourced env file line with an unquoted blank runs a command",
    rationale=(
        "bash ends an unquoted assignment's value at the first unquoted blank; a word after it makes the "
        "line a command with a temporary assignment (bash(1), SIMPLE COMMAND EXPANSION). `source .env` "
        'with `NAME=SAS Job Execution compute context` runs `Job` ("Job: command not found") and leaves '
        "NAME unset for the server started after it (sassoftware/sas-mcp-server#32). Read only in files "
        "whose every statement is an assignment."
    ),
    fix='Quote the value (`NAME="a b c"`); keep a separate file for `docker run --env-file`, which keeps '
    "quotes.",
    example=Example(
        files={
            "vllm.env": "VLLM_API_KEY_NOTE=my key\n",
            "launch.sh": _HEAD + "source vllm.env\n" + _SERVER + "\n",
        },
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={
            "vllm.env": 'VLLM_API_KEY_NOTE="my key"\n',
            "launch.sh": _HEAD + "source vllm.env\n" + _SERVER + "\n",
        },
        argv=("check", "launch.sh"),
    ),
)

_VLLM_POD = """apiVersion: v1
kind: Service
metadata:
  name: vllm
spec:
  selector: {app: vllm}
  ports: [{port: 8000}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]
"""

TP041 = Rule(
    code="TP041",
    layer="transport",
    severity="error",
    title="A Kubernetes service link sets a variable the framework reads",
    rationale=(
        "With `enableServiceLinks` (true by default) the kubelet sets `{SERVICE}_PORT=tcp://IP:PORT` and "
        "`{SERVICE}_SERVICE_HOST`/`_PORT` in every pod of the namespace for each Service. A Service named "
        "`vllm` thus sets `VLLM_PORT=tcp://...`, which vLLM reads as its internal port and refuses: "
        "\"VLLM_PORT '...' appears to be a URI\" (vllm/envs.py get_vllm_port). Kubernetes docs, Service > "
        "Environment variables."
    ),
    fix="Rename the Service (not `vllm`), or set `enableServiceLinks: false` in the pod spec.",
    example=Example(files={"vllm.yaml": _VLLM_POD}, argv=("check", "vllm.yaml")),
    correct=Example(
        files={
            "vllm.yaml": _VLLM_POD.replace(
                "name: vllm\nspec:\n  selector", "name: vllm-api\nspec:\n  selector"
            )
        },
        argv=("check", "vllm.yaml"),
    ),
)

_GPU_POD = """apiVersion: v1
kind: Pod
metadata:
  name: sglang
spec:
  containers:
    - name: sglang
      image: lmsysorg/sglang:v0.5.5
      command: ["python3", "-m", "sglang.launch_server"]
      args: ["--model-path", "Qwen/Qwen2.5-7B-Instruct", "--tp", "4"]
      resources:
        limits:
          nvidia.com/gpu: 2
"""

TP042 = Rule(
    code="TP042",
    layer="transport",
    severity="error",
    title="The container has fewer GPUs than the parallel sizes need",
    rationale=(
        "A container sees only the GPUs its runtime gives it: Kubernetes' `nvidia.com/gpu` limit, "
        '`docker run --gpus N`, compose device reservations (NVIDIA Container Toolkit, Kubernetes "Schedule '
        'GPUs"). Tensor x pipeline x data parallel sizes above that count cannot start.'
    ),
    fix="Give the container as many GPUs as the parallel sizes multiply to, or lower the sizes.",
    example=Example(files={"pod.yaml": _GPU_POD}, argv=("check", "pod.yaml")),
    correct=Example(files={"pod.yaml": _GPU_POD.replace("gpu: 2", "gpu: 4")}, argv=("check", "pod.yaml")),
)

TP043 = Rule(
    code="TP043",
    layer="transport",
    severity="error",
    title="CUDA_VISIBLE_DEVICES names a GPU the container does not have",
    rationale=(
        "Inside a container the GPUs it is given are numbered 0..N-1, whatever their host indices "
        "(NVIDIA Container Toolkit, GPU enumeration). A CUDA_VISIBLE_DEVICES copied from the host "
        "(`4,5`) names ordinals that do not exist there, and CUDA stops enumerating at the first one."
    ),
    fix="Number the GPUs from 0 inside the container, or pick host GPUs with --gpus / "
    "NVIDIA_VISIBLE_DEVICES instead.",
    example=Example(
        files={
            "pod.yaml": _GPU_POD.replace(
                "      resources:",
                '      env: [{name: CUDA_VISIBLE_DEVICES, value: "2,3"}]\n      resources:',
            ).replace('"--tp", "4"', '"--tp", "2"')
        },
        argv=("check", "pod.yaml"),
    ),
    correct=Example(
        files={"pod.yaml": _GPU_POD.replace('"--tp", "4"', '"--tp", "2"')}, argv=("check", "pod.yaml")
    ),
)

TP040 = Rule(
    code="TP040",
    layer="transport",
    severity="info",
    title="The image's entrypoint is not known",
    rationale=(
        "The process of a container is the image's ENTRYPOINT followed by the command (docker run's words "
        "after the image, compose `command:`, Kubernetes `args:`). argtrace knows the entrypoints of the "
        "official vLLM and SGLang images (generated from their Dockerfiles); for another image the words "
        "are read as the whole command, said once per image."
    ),
    fix="Nothing if the image has no ENTRYPOINT; else give it with `--entrypoint` / `command:` so the "
    "whole command is in the launch.",
    example=Example(
        files={},
        argv=("check", "-c", "docker run my/image:1 python3 -m sglang.launch_server --model-path /m"),
    ),
    correct=Example(
        files={},
        argv=(
            "check",
            "-c",
            "docker run --entrypoint python3 my/image:1 -m sglang.launch_server --model-path /m",
        ),
    ),
)

TP044 = Rule(
    code="TP044",
    layer="transport",
    severity="info",
    title="The image's entrypoint is assumed for this tag",
    rationale=(
        "The official image's Dockerfile changed its ENTRYPOINT over time (vLLM's vllm-openai stage: "
        "`python3 -m vllm.entrypoints.openai.api_server` up to 0.11.0, `vllm serve` from 0.11.1); the "
        "generated table knows which releases have which, each range from public evidence. A tag outside "
        "every range (`latest`, `nightly`, a pre-release, a release the evidence does not reach) gets the "
        "entrypoint of the nearest range, as an assumption."
    ),
    fix="Pin the tag to a release, or the entrypoint with `--entrypoint` / `command:`, or pass "
    "--framework-version.",
    example=Example(files={}, argv=("check", "-c", "docker run vllm/vllm-openai:latest m")),
    correct=Example(files={}, argv=("check", "-c", "docker run vllm/vllm-openai:v0.12.0 m")),
)

PR040 = Rule(
    code="PR040",
    layer="process",
    severity="error",
    basis="schema",
    title="The server module does not run in this release",
    rationale=(
        "vLLM's demo server `python -m vllm.entrypoints.api_server` (the engine's flags plus its own "
        "`--host`, `--port`, `--ssl-*`, `--root-path`, `--log-level`) is in some releases only: of the "
        "bundled ones, 0.6.6.post1 to 0.24.0 ship it, 0.25.1 and later do not (`No module named "
        "vllm.entrypoints.api_server`), and in 0.7.3 its own `__main__` block raises before parsing "
        "(`add_argument(..., ge=1024, le=65535)`: TypeError). Generated from the wheels by "
        "scripts/gen_vllm_demo_server.py. Likewise `sglang serve` needs `sglang.cli`, which SGLang releases "
        "before 0.5.5 do not have (`No module named 'sglang.cli'`, recorded when each release's parser was "
        "generated; scripts/gen_entrypoint_index.py lists every entry point's releases). And `vllm bench "
        "latency|throughput`, which build an engine from the engine's flags, exist from 0.8.5.post1 of the "
        "bundled releases (before, the console reads `bench` as an invalid choice: "
        "scripts/gen_vllm_bench.py)."
    ),
    fix="Use `vllm serve MODEL` (the OpenAI-compatible server), or a release that ships the demo; for "
    "`sglang serve`, `python -m sglang.launch_server` with the same flags; for `vllm bench`, a release that "
    "has it.",
    example=Example(
        files={},
        argv=(
            "check",
            "--framework-version",
            "0.33.0",
            "-c",
            "python3 -m vllm.entrypoints.api_server --model /models/qwen",
        ),
    ),
    correct=Example(
        files={},
        argv=(
            "check",
            "--framework-version",
            "0.11.0",
            "-c",
            "python3 -m vllm.entrypoints.api_server --model /models/qwen",
        ),
    ),
)

TP045 = Rule(
    code="TP045",
    layer="transport",
    severity="error",
    title="The container's command starts with a flag and nothing runs it",
    rationale=(
        "The words after the image (docker run, compose `command:`, Kubernetes `args:`) follow the image's "
        "ENTRYPOINT. When the image has none, or only one that runs its arguments (NVIDIA's "
        '`nvidia_entrypoint.sh` ends in `exec "$@"`, as lmsysorg/sglang\'s does), the first word is the '
        "program: a command that starts with a flag (`--host 0.0.0.0 ...`, flags copied from a vllm-openai "
        "line, whose entrypoint is the server) is run as a program named `--host`, and the container "
        'exits at once ("executable file not found"). Example: sgl-project/sglang#3855.'
    ),
    fix="Name the server before its flags (`python3 -m sglang.launch_server --model-path ... --host ...`), "
    "or drop the flags.",
    example=Example(
        files={}, argv=("check", "-c", "docker run lmsysorg/sglang:v0.5.5 --model-path m --port 30000")
    ),
    correct=Example(
        files={},
        argv=(
            "check",
            "-c",
            "docker run lmsysorg/sglang:v0.5.5 python3 -m sglang.launch_server --model-path m --port 30000",
        ),
    ),
)

_LLMISVC = """apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: qwen
spec:
  model:
    uri: hf://Qwen/Qwen3-0.6B
    name: Qwen/Qwen3-0.6B
  template:
    containers:
      - name: main
        args: ["--max-model-len", "8192"]
"""

TP046 = Rule(
    code="TP046",
    layer="transport",
    severity="info",
    title="The server start is KServe's preset, not the file's",
    rationale=(
        "A KServe LLMInferenceService's `main` container usually names no command: the controller merges "
        "the resource over a well-known LLMInferenceServiceConfig preset (config-llm-template, or the "
        "decode/prefill templates), whose command is `/bin/bash -c SCRIPT --` ending in `exec vllm serve "
        "/mnt/models --served-model-name NAME --port 8000 ... ${VLLM_ADDITIONAL_ARGS} $@`: the container's "
        "`args` are appended to vLLM's command line. argtrace builds that start from KServe's own preset "
        "(v0.20.0) and checks the user's words in it; a cluster whose preset was changed, or a "
        "`spec.baseRefs` config, may run another command, so what rests on it is said as assumed."
    ),
    fix="Nothing if the cluster runs KServe's presets; else give the container its own `command`.",
    example=Example(files={"llmisvc.yaml": _LLMISVC}, argv=("check", "llmisvc.yaml")),
    correct=Example(
        files={
            "llmisvc.yaml": _LLMISVC.replace(
                '        args: ["--max-model-len", "8192"]',
                '        command: ["vllm", "serve", "/mnt/models"]\n'
                '        args: ["--max-model-len", "8192"]',
            )
        },
        argv=("check", "llmisvc.yaml"),
    ),
)

_PROBED_POD = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.12.0
          args: ["Qwen/Qwen2.5-1.5B-Instruct"PORT]
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /health, port: http}}
"""

TP070 = Rule(
    code="TP070",
    layer="transport",
    severity="warning",
    title="A Kubernetes probe asks a port the server does not listen on",
    rationale=(
        "The kubelet runs a container's httpGet/tcpSocket probes against the pod's IP at the probe's "
        "`port`, a number or the name of one of the container's `ports` (Kubernetes API reference, Probe). "
        "`containerPort` only documents a port: the server listens where its own `--port` says (vLLM's "
        "default 8000, SGLang's 30000). A probe on another port never succeeds: a failing livenessProbe "
        "restarts the container again and again, a readinessProbe keeps the pod out of its Service, a "
        "startupProbe does both (castai/helm-charts PR#739: probes on container.port 8080, vLLM on 8000)."
    ),
    fix="give the server --port with the probed port (or point the probe at the server's port)",
    example=Example(files={"vllm.yaml": _PROBED_POD.replace("PORT", "")}, argv=("check", "vllm.yaml")),
    correct=Example(
        files={"vllm.yaml": _PROBED_POD.replace("PORT", ', "--port", "8080"')}, argv=("check", "vllm.yaml")
    ),
    exceptions="Only ports the manifest gives as a number or a named containerPort, against a port the "
    "parser knows (a `$PORT` it cannot read is not compared); a container whose command starts another "
    "listener besides the server may answer the probe there.",
)

SH044 = Rule(
    code="SH044",
    layer="shell",
    severity="error",
    title="The server command's words are names given to export, readonly or declare",
    rationale=(
        "`export`, `readonly`, `declare`, `typeset` and `local` take every word after them as a name (or a "
        "NAME=VALUE assignment) to mark, not as a command to run. When the server command lands among their "
        "arguments (most often a backslash at the end of an `export NAME=VALUE \\` line, which joins it to "
        "the next line), bash marks `vllm`, `serve` and the other identifier-shaped words, refuses the rest "
        '("`Qwen/Qwen3.5-4B\': not a valid identifier", "`--port\': not a valid identifier") and returns '
        "status 1 (bash 5.2: the valid names are still exported; `set -e` stops the script there). The "
        "server never starts."
    ),
    fix="End the declaration before the server command: remove the backslash after `export NAME=VALUE` (or "
    "put the assignment in front of the command: `NAME=VALUE vllm serve ...`).",
    example=Example(
        files={"launch.sh": _HEAD + "export HF_HUB_OFFLINE=1 \\\n  " + _SERVER + "\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + "export HF_HUB_OFFLINE=1\n" + _SERVER + "\n"},
        argv=("check", "launch.sh"),
    ),
)

SH049 = Rule(
    code="SH049",
    layer="shell",
    severity="warning",
    title="systemd-run's service manager substitutes a `$NAME` the caller's shell left, from the service's "
    "environment",
    rationale=(
        "Without `--scope`, systemd-run hands its command to the service manager as the transient service's "
        "`ExecStart=`, and the manager substitutes `$NAME` (a whole word, split at blanks) and `${NAME}` "
        "in it when the service starts, from the service's environment: the `--setenv`/`-E` and `-p "
        "Environment=` values and the manager's own, never the caller's variables (systemd-run(1): the "
        "command line is expanded like `ExecStart=`, `--expand-environment=no` turns it off since systemd "
        "254; systemd.service(5), \"Command lines\"). A `'$PORT'` the caller's shell left as written (single "
        "quotes, `\\$`) is therefore empty there unless the service is given PORT: a `$PORT` word vanishes, "
        "a `${PORT}` becomes the empty word. argtrace does not see the manager's own environment, so this "
        "rests on it not setting the name."
    ),
    fix="Give the service the variable (`--setenv=PORT=8000`, or `-E PORT` to copy the caller's value), or "
    'let the caller\'s shell expand it (`"$PORT"`).',
    example=Example(
        files={"launch.sh": _HEAD + "systemd-run --unit vllm vllm serve Qwen/Qwen3-0.6B --port '${PORT}'\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={
            "launch.sh": _HEAD
            + "systemd-run --unit vllm --setenv=PORT=8000 vllm serve Qwen/Qwen3-0.6B --port '${PORT}'\n"
        },
        argv=("check", "launch.sh"),
    ),
)

SH050 = Rule(
    code="SH050",
    layer="shell",
    severity="error",
    title="`sbatch --wrap=` followed by more words: sbatch refuses the job",
    rationale=(
        '`sbatch --wrap=STRING` wraps STRING in a simple `sh` script and submits it; then "a script name and '
        'arguments may not be specified" (sbatch(1), `--wrap`). An unquoted command after `--wrap=` (`--wrap='
        "vllm serve m --port 8000`) leaves its other words on sbatch's command line, which sbatch reads as "
        "a batch script's arguments: it exits with \"sbatch: error: Script arguments not permitted with "
        '--wrap option" (rwth-i6/sisyphus#182 quotes it), nothing is submitted and the server never starts. '
        "With the command string whole, argtrace follows it as that `sh` script (`sh -c STRING`), with "
        "sbatch's `--export` (default ALL) for its environment."
    ),
    fix='Quote the whole command: `sbatch ... --wrap="vllm serve m --port 8000"`.',
    example=Example(
        files={"launch.sh": _HEAD + "sbatch --gres=gpu:1 --wrap=vllm serve Qwen/Qwen3-0.6B --port 8000\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + 'sbatch --gres=gpu:1 --wrap="vllm serve Qwen/Qwen3-0.6B --port 8000"\n'},
        argv=("check", "launch.sh"),
    ),
)
