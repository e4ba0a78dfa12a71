"""Rules of the deployers that turn a file or a command into the server's container (TP092-TP093): Kustomize
overlays, ``gcloud run deploy`` and Knative / Cloud Run services.

The behaviour is each tool's own: Kustomize's build (the fields of ``kustomization.yaml``, strategic merge
as the ``patchMergeKey`` struct tags of k8s.io/api define it), gcloud's list arguments (``gcloud topic
escaping``) and Cloud Run's container contract (``PORT``, ``K_SERVICE``, ``K_REVISION``,
``K_CONFIGURATION``; knative/serving ``pkg/reconciler/revision/resources/deploy.go``).
"""

from __future__ import annotations

from argtrace.rules import Example, Rule

_BASE = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  template:\n    spec:\n"
    "      containers:\n      - name: server\n        image: vllm/vllm-openai:v0.10.0\n"
    "        command: [python3, -m, vllm.entrypoints.openai.api_server]\n"
    "        args: [--model=Qwen/Qwen3-0.6B]\n"
)

TP092 = Rule(
    code="TP092",
    layer="transport",
    severity="info",
    title="A part of a kustomization argtrace does not apply",
    rationale=(
        "`argtrace check kustomization.yaml` builds the overlay as `kustomize build` does: its resources "
        "(files, and directories built first), `configMapGenerator` literals and env files, strategic-merge "
        "and JSON 6902 patches, `images`, and the Service names `namePrefix`/`nameSuffix` give. A part it "
        "does not apply (components, Helm charts, replacements, vars, plugins, a remote resource, a JSON "
        "patch `move`/`copy`/`test`, a patch that matches nothing, a file that is not there) may change a "
        "container's command, arguments or environment: the servers are read without it, and what follows "
        "rests on that."
    ),
    fix="Check the build itself: `kubectl kustomize DIR > built.yaml` (or `kustomize build DIR`), then "
    "`argtrace check built.yaml`.",
    example=Example(
        files={
            "base.yaml": _BASE,
            "kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
            "resources:\n  - base.yaml\ncomponents:\n  - ../gpu\n",
        },
        argv=("check", "--no-resolve", "kustomization.yaml"),
    ),
    correct=Example(
        files={
            "base.yaml": _BASE,
            "kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
            "resources:\n  - base.yaml\n",
        },
        argv=("check", "--no-resolve", "kustomization.yaml"),
    ),
)

TP093 = Rule(
    code="TP093",
    layer="transport",
    severity="info",
    title="A `gcloud run deploy` whose container argtrace cannot read",
    rationale=(
        "`gcloud run deploy` makes a Cloud Run service whose container runs `--command` (else the image's "
        "ENTRYPOINT) with `--args` (else the image's CMD), with `--set-env-vars`, `--set-secrets` and PORT "
        "from `--port` (gcloud's reference and Cloud Run's container contract); argtrace reads that "
        "container like a Knative Service's. When a value it needs is not known here (a word of the script "
        "holding `$(...)` or a variable the script does not set), when the image is built from `--source`, "
        "or when `--container` configures several containers, the server is not read, and saying nothing "
        "would look like no server at all."
    ),
    fix="Give the values the command is run with (`argtrace check --env NAME=value ...`), or check the "
    "service it made: `gcloud run services describe SERVICE --format export > service.yaml`, then "
    "`argtrace check service.yaml`.",
    example=Example(
        files={
            "deploy.sh": 'ARGS="$(cat args.txt)"\ngcloud run deploy vllm --image vllm/vllm-openai:v0.10.0 '
            '--args="$ARGS"\n'
        },
        argv=("check", "--no-resolve", "deploy.sh"),
    ),
    correct=Example(
        files={
            "deploy.sh": "gcloud run deploy vllm --image vllm/vllm-openai:v0.10.0 "
            "--args=--model,Qwen/Qwen3-0.6B,--port,8080\n"
        },
        argv=("check", "--no-resolve", "deploy.sh"),
    ),
)
