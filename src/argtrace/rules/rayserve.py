"""Rules of Ray Serve LLM as a launch carrier (TP080-TP082): what Ray does with an ``llm_configs`` entry of a
serve config before vLLM's engine sees it (ray 2.60.0, read from its wheel: ``data/ray_serve_llm.json``);
and what KubeRay does to a Ray pod's command (TP108) and to a RayJob's entrypoint (TP109,
layers/transport/kuberay.py)."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_APP = (
    "applications:\n"
    "- name: llms\n"
    "  import_path: ray.serve.llm:build_openai_app\n"
    "  route_prefix: /\n"
    "  args:\n"
    "    llm_configs:\n"
    "    - model_loading_config:\n"
    "        model_id: qwen-0.5b\n"
    "        model_source: Qwen/Qwen2.5-0.5B-Instruct\n"
)

TP080 = Rule(
    code="TP080",
    layer="transport",
    severity="error",
    title="Ray Serve LLM refuses an `engine_kwargs` key before vLLM starts",
    rationale=(
        "Ray Serve LLM hands `engine_kwargs` to vLLM as keyword arguments, not as a command line. It first "
        "splits them into the fields of vLLM's `FrontendArgs` and `AsyncEngineArgs` and raises `ValueError: "
        "Unknown engine argument: KEY` for any other key (`VLLMEngineConfig.from_llm_config`), so a "
        "command-line-only option of `vllm serve` (`headless`, `api_server_count`, `config`) stops the "
        "replica. It also refuses `model` and `served_model_name` (Ray sets both from "
        "`model_loading_config`) and a `distributed_executor_backend` other than `ray` on GPUs "
        "(`get_initialization_kwargs`; ray 2.60.0 `ray/llm/_internal/serve/engines/vllm/vllm_models.py`). "
        "The replica never starts."
    ),
    fix=(
        "Put the model in `model_loading_config` (`model_source`, and `model_id` for the served name), drop "
        "`distributed_executor_backend` (Ray sets `ray`), and drop a key that only `vllm serve`'s command "
        "line has."
    ),
    example=Example(
        files={"serve.yaml": _APP + "      engine_kwargs:\n        model: Qwen/Qwen2.5-0.5B-Instruct\n"},
        argv=("check", "serve.yaml"),
    ),
    correct=Example(
        files={"serve.yaml": _APP + "      engine_kwargs:\n        max_model_len: 4096\n"},
        argv=("check", "serve.yaml"),
    ),
)

TP081 = Rule(
    code="TP081",
    layer="transport",
    severity="error",
    title="An `llm_configs` entry Ray's `LLMConfig` refuses (a key it lacks, or no `model_id`)",
    rationale=(
        "`LLMConfig` and `ModelLoadingConfig` are pydantic models that forbid keys they do not define "
        '(`BaseModelExtended`, `extra="forbid"`, ray 2.60.0), so `engine_args:` for `engine_kwargs:` or '
        "`engine_kwargs:` nested under `model_loading_config:` stops the application with `Extra inputs are "
        "not permitted`; before Ray forbade them (ray-project/ray#55440) the values were dropped silently. "
        "Either way the settings under the key never reach vLLM. `model_loading_config.model_id` has no "
        "default: an entry without it is refused with `Field required`."
    ),
    fix=(
        "Rename or move the key to the one Ray reads (the message names the nearest); give "
        "`model_loading_config.model_id`."
    ),
    example=Example(
        files={"serve.yaml": _APP + "      engine_args:\n        max_model_len: 4096\n"},
        argv=("check", "serve.yaml"),
    ),
    correct=Example(
        files={"serve.yaml": _APP + "      engine_kwargs:\n        max_model_len: 4096\n"},
        argv=("check", "serve.yaml"),
    ),
)

TP082 = Rule(
    code="TP082",
    layer="transport",
    severity="info",
    title="Part of a Ray Serve config argtrace does not follow",
    rationale=(
        "argtrace reads the `llm_configs` of `ray.serve.llm:build_openai_app` as vLLM servers. An "
        "application built by another function (a custom deployment, `build_pd_openai_app`), an engine "
        "other than vLLM (`server_cls: SGLangServer`), an `llm_configs` entry given as a path to a file "
        "that is not here, or an `engine_kwargs` key vLLM takes only as a keyword (no `vllm serve` flag) "
        "is not checked; what it sets stays unknown, not wrong."
    ),
    fix="Nothing to change in the launch; check that part by hand, or give argtrace the file it names.",
    example=Example(
        files={
            "serve.yaml": (
                "applications:\n- name: llms\n  import_path: ray.serve.llm:build_openai_app\n  args:\n"
                "    llm_configs:\n    - models/qwen.yaml\n"
            )
        },
        argv=("check", "serve.yaml"),
    ),
    correct=Example(
        files={"serve.yaml": _APP},
        argv=("check", "serve.yaml"),
    ),
)

_RAY_HEAD = (
    "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: vllm\nspec:\n  headGroupSpec:\n"
    "    rayStartParams: {}\n    template:\n      spec:\n        containers:\n        - name: ray-head\n"
    "          image: vllm/vllm-openai:v0.10.2\n"
)

TP108 = Rule(
    code="TP108",
    layer="transport",
    severity="error",
    title="KubeRay re-splits the Ray container's command, so words of it are lost",
    rationale=(
        "Unless the Ray container's command already says `ray start` (or the pod template is annotated "
        '`ray.io/overwrite-container-cmd: "true"`), KubeRay joins its `command` and `args` into one string, '
        "each word between spaces and none quoted, and runs `/bin/bash -c -- '<that> && ulimit ...; "
        "ray start ...'` instead (ray-project/kuberay, ray-operator/controllers/ray/common/pod.go: BuildPod, "
        "convertCmdToString). A word with a space in it, the script of `bash -c` or a JSON value, is split "
        "again: `bash -c` then runs only the first word of the script, the rest becoming `$0`, `$1`..., so "
        "the server never gets its arguments."
    ),
    fix=(
        "Give the server command as separate words without `bash -c` (KubeRay runs it with `bash -c` "
        "itself), quoting inside one word what must stay one word; or start Ray first in the same command "
        "(`ray start --head ... && vllm serve ...`), which KubeRay leaves as written; or annotate the pod "
        'template `ray.io/overwrite-container-cmd: "true"` and start Ray yourself.'
    ),
    example=Example(
        files={
            "ray.yaml": _RAY_HEAD
            + '          command: ["/bin/bash", "-c"]\n'
            + '          args: ["vllm serve Qwen/Qwen3-8B --max-model-len 8192"]\n'
        },
        argv=("check", "ray.yaml"),
    ),
    correct=Example(
        files={
            "ray.yaml": _RAY_HEAD
            + '          command: ["/bin/bash", "-c"]\n'
            + '          args: ["ray start --head && vllm serve Qwen/Qwen3-8B --max-model-len 8192"]\n'
        },
        argv=("check", "ray.yaml"),
    ),
)

_RAY_JOB = (
    "apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: serve\nspec:\n  entrypoint: {entry}\n"
    "  rayClusterSpec:\n    headGroupSpec:\n      rayStartParams: {{}}\n      template:\n        spec:\n"
    "          containers:\n          - name: ray-head\n            image: vllm/vllm-openai:v0.10.2\n"
)

TP109 = Rule(
    code="TP109",
    layer="transport",
    severity="warning",
    title="KubeRay's job submitter ends a RayJob's entrypoint at its first `;`, `&&` or `|`",
    rationale=(
        "From KubeRay 1.3.0 on, a RayJob's submitter runs `bash -c` on one string in which the entrypoint is "
        "pasted unquoted after `ray job submit ... --` (ray-project/kuberay, "
        "ray-operator/controllers/ray/common/job.go: GetK8sJobCommand, BuildJobSubmitCommand since 1.5.0; "
        "rayjob_controller.go joins it with spaces). So bash, in the submitter pod, ends the submit at the "
        "entrypoint's first `;`, `&&`, `||`, `|` or `&`: only the command before it is sent to the cluster, "
        "and the rest runs in the submitter pod, which has the head's image but none of its GPUs "
        "(kuberay#3802 and #3929, open). Before 1.3.0 the entrypoint was split into words (shlex) and sent "
        "whole, so the head ran every command. Which KubeRay runs the manifest is not in it: this rests on "
        "1.3.0 or later."
    ),
    fix=(
        "Make the list one word of the submit, so it reaches the cluster whole: `entrypoint: bash -c "
        "'pip install -r requirements.txt && vllm serve ...'` (bash on the submitter keeps the quoted word, "
        "`ray job submit` quotes it again, and the head's shell runs the list)."
    ),
    example=Example(
        files={"job.yaml": _RAY_JOB.format(entry="pip install -U hf_transfer && vllm serve Qwen/Qwen3-8B")},
        argv=("check", "job.yaml"),
    ),
    correct=Example(
        files={
            "job.yaml": _RAY_JOB.format(
                entry="bash -c 'pip install -U hf_transfer && vllm serve Qwen/Qwen3-8B'"
            )
        },
        argv=("check", "job.yaml"),
    ),
)
