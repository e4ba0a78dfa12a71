"""Multi-node rules (PA030-PA040, parser layer): the server starts of one launch that spans several nodes,
read together. Each node's argv is parsed by the framework's parser like any other server start; these
rules compare what the parsers saw across the nodes (``layers/multinode.py``)."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_V = ("--framework-version", "0.5.10.post1")
_NODE = "python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --dist-init-addr 10.0.0.1:5000"


def _nodes(*tails: str) -> Example:
    # A script that starts every node over ssh, one start per node, in the background.
    lines = ["#!/bin/bash"] + [f"ssh node{n} {_NODE} {tail} &" for n, tail in enumerate(tails)] + ["wait", ""]
    return Example(argv=("check", *_V, "--no-resolve", "nodes.sh"), files={"nodes.sh": "\n".join(lines)})


PA_NODES_DISAGREE = Rule(
    code="PA030",
    layer="parser",
    severity="error",
    title="The nodes of one multi-node launch disagree on a setting",
    rationale="The nodes of one multi-node server form a single distributed model: every node must load the "
    "same model with the same tensor, pipeline, expert and data parallel sizes, the same number of nodes, "
    "the same rendezvous address, dtype and quantization, and the same release. A node started with "
    "another value either fails the rendezvous (a hang until NCCL's timeout) or builds another shard "
    "layout than its peers.",
    fix="give every node the same value (one variable the node commands share)",
    example=_nodes("--tp-size 16 --nnodes 2 --node-rank 0", "--tp-size 8 --nnodes 2 --node-rank 1"),
    correct=_nodes("--tp-size 16 --nnodes 2 --node-rank 0", "--tp-size 16 --nnodes 2 --node-rank 1"),
    exceptions="Settings that differ per node by design are not compared: `--node-rank`, vLLM's "
    "`--data-parallel-start-rank`, `--data-parallel-rank`, `--headless`, `--data-parallel-size-local` "
    "and the ports. Starts of one model at different rendezvous are separate launches (replicas, prefill and "
    "decode groups), not compared; when one of them starts fewer nodes than its `--nnodes` this rule says so "
    "as information. Nodes grouped by their model alone (a rendezvous that is not known statically) give "
    "information only, with that basis.",
)

PA_RANK_REPEATED = Rule(
    code="PA031",
    layer="parser",
    severity="error",
    title="Two nodes of one launch have the same rank",
    rationale="Each node of a multi-node launch takes its place from its rank (`--node-rank`, vLLM's "
    "`--data-parallel-start-rank`). Two nodes with one rank both claim the same shard; the rendezvous waits "
    "for the rank nobody took and the launch hangs until the distributed timeout.",
    fix="give each node its own rank, 0 to nnodes-1",
    example=_nodes("--tp-size 16 --nnodes 2 --node-rank 0", "--tp-size 16 --nnodes 2 --node-rank 0"),
    correct=_nodes("--tp-size 16 --nnodes 2 --node-rank 0", "--tp-size 16 --nnodes 2 --node-rank 1"),
)

PA_RANKS_INCOMPLETE = Rule(
    code="PA032",
    layer="parser",
    severity="error",
    title="The node ranks of one launch do not cover 0 to nnodes-1",
    rationale="When a file starts every node of a launch, the ranks must be exactly 0, 1, ..., nnodes-1: "
    "more nodes than `--nnodes`, or a rank at or above it, never joins; a rank nobody takes leaves the "
    "others waiting at the rendezvous. Likewise vLLM's data parallel ranks over the pods of one carrier "
    "group (a Dynamo service's multinode pods, a LeaderWorkerSet group): each pod runs "
    "`--data-parallel-size-local` of them, and fewer in all than `--data-parallel-size` leaves the data "
    "parallel group waiting.",
    fix="start exactly nnodes nodes, with ranks 0 to nnodes-1",
    example=_nodes("--tp-size 16 --nnodes 2 --node-rank 0", "--tp-size 16 --nnodes 2 --node-rank 2"),
    correct=_nodes("--tp-size 16 --nnodes 2 --node-rank 0", "--tp-size 16 --nnodes 2 --node-rank 1"),
    exceptions="A file that starts fewer nodes than `--nnodes` (one script per node, run on each) is not "
    "judged: the other nodes are started elsewhere.",
)


def _batch(srun_line: str, nodes: int = 2, gpus: int = 8, tasks_per_node: int = 1) -> Example:
    script = (
        "#!/bin/bash\n"
        f"#SBATCH --nodes={nodes}\n"
        f"#SBATCH --ntasks-per-node={tasks_per_node}\n"
        f"#SBATCH --gpus-per-node={gpus}\n"
        "export HEAD=node0\n"
        f"{srun_line}\n"
    )
    return Example(argv=("check", *_V, "--no-resolve", "job.sh"), files={"job.sh": script})


_SRUN_SG = (
    "python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --tp 16 --dist-init-addr $HEAD:5000"
)

PA_SRUN_ONE_ARGV = Rule(
    code="PA033",
    layer="parser",
    severity="error",
    title="srun starts every node with the same rank",
    rationale="In a batch script, the words of an `srun` line are expanded once, by the batch shell, which "
    "runs on the first node as task 0: `--node-rank $SLURM_NODEID` there is `--node-rank 0` for every task "
    "srun starts (sbatch(1), srun(1): each task gets its own SLURM_NODEID only in its own environment). "
    "Every node then claims rank 0 and the rendezvous waits for the others until it times out.",
    fix="let each task expand its own rank: srun bash -c '... --node-rank $SLURM_NODEID' (single quotes, so "
    "the batch shell leaves it alone)",
    example=_batch(f"srun {_SRUN_SG} --nnodes 2 --node-rank $SLURM_NODEID"),
    correct=_batch(f"srun bash -c '{_SRUN_SG} --nnodes 2 --node-rank $SLURM_NODEID'"),
)

PA_ALLOCATION_TOO_SMALL = Rule(
    code="PA034",
    layer="parser",
    severity="error",
    title="The nodes the carrier starts do not match --nnodes",
    rationale="A multi-node server waits at its rendezvous until all `--nnodes` nodes have joined. A SLURM "
    "job that allocates fewer nodes (`#SBATCH --nodes`, `srun -N`) can never start them all: the launch "
    "hangs until the distributed timeout. A LeaderWorkerSet group is exactly `size` pods: with another "
    "`--nnodes`, either some ranks never start or some pods have no rank to join.",
    fix="allocate as many nodes as --nnodes (#SBATCH --nodes=N; a LeaderWorkerSet's size, or "
    "--nnodes $(LWS_GROUP_SIZE)), or change --nnodes",
    example=_batch(f"srun bash -c '{_SRUN_SG} --nnodes 4 --node-rank $SLURM_NODEID'"),
    correct=_batch(f"srun bash -c '{_SRUN_SG} --nnodes 4 --node-rank $SLURM_NODEID'", nodes=4),
)


def _replicas(kind: str, rank: str) -> Example:
    # A workload whose pods all run one argv: the rank is written once, in the pod template.
    manifest = (
        "apiVersion: apps/v1\n"
        f"kind: {kind}\n"
        "metadata:\n"
        "  name: sglang\n"
        "spec:\n"
        "  replicas: 2\n"
        "  template:\n"
        "    spec:\n"
        "      containers:\n"
        "        - name: server\n"
        "          image: lmsysorg/sglang:v0.5.10.post1\n"
        '          command: ["/bin/bash", "-c"]\n'
        "          args:\n"
        "            - python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --tp 16"
        f" --dist-init-addr sglang-0.sglang:5000 --nnodes 2 --node-rank {rank}\n"
        "          resources:\n"
        "            limits:\n"
        '              nvidia.com/gpu: "8"\n'
    )
    return Example(argv=("check", *_V, "--no-resolve", "server.yaml"), files={"server.yaml": manifest})


PA_REPLICAS_ONE_ARGV = Rule(
    code="PA035",
    layer="parser",
    severity="error",
    title="Every replica of a Deployment or StatefulSet gets the same rank",
    rationale="A Deployment's or StatefulSet's replicas are copies of one pod template. A multi-node server "
    "started from it needs each pod to take another `--node-rank`; written as a number in the template (or "
    "left out), every replica gets the same one, all claim the same shard and the rendezvous waits for "
    "the ranks nobody took. A Deployment's pods have random names and no ordinal, so they cannot tell "
    "their ranks apart at all; a StatefulSet's pod `NAME-i` can derive its rank from its ordinal.",
    fix="run the nodes as a StatefulSet and derive the rank from the ordinal (`--node-rank "
    "${HOSTNAME##*-}` in a shell command, or an env var from the `apps.kubernetes.io/pod-index` label), "
    "or use a LeaderWorkerSet (`--node-rank $(LWS_WORKER_INDEX)`)",
    example=_replicas("Deployment", "0"),
    correct=_replicas("StatefulSet", "${HOSTNAME##*-}"),
    exceptions="Replicas of a single-node server are independent servers behind one Service and are not "
    "judged.",
)


PA_GPUS_PER_NODE = Rule(
    code="PA036",
    layer="parser",
    severity="error",
    title="The GPUs each node gets do not match the parallel sizes",
    rationale="A server spreads tensor x pipeline parallel ranks over its nodes (vLLM's data parallel "
    "nodes run `--data-parallel-size-local` of them each): every node needs exactly that many GPUs. A "
    "node that gets fewer (`#SBATCH --gpus-per-node`, `--gres=gpu:N`, a pod's `nvidia.com/gpu` limit) "
    "fails when its workers look for a device that is not there; one that gets more leaves GPUs idle.",
    fix="request as many GPUs per node as tp x pp / nnodes (x the local data parallel size), or change "
    "the parallel sizes",
    example=_batch(f"srun bash -c '{_SRUN_SG} --nnodes 2 --node-rank $SLURM_NODEID'", gpus=4),
    correct=_batch(f"srun bash -c '{_SRUN_SG} --nnodes 2 --node-rank $SLURM_NODEID'"),
    exceptions="More GPUs than needed is a warning (they stay idle), fewer an error. SGLang's `--dp-size` "
    "without `--enable-dp-attention` multiplies the GPUs; with it, data parallel runs inside tp.",
)


PA_EXPORT_DROPS = Rule(
    code="PA037",
    layer="parser",
    severity="error",
    title="srun --export keeps a variable from the tasks that read it",
    rationale="`srun --export` decides which of the batch shell's variables reach each task (srun(1)): "
    "`ALL`, the default, passes all of them; `NONE` passes only the `SLURM_*` ones; a list passes the "
    "`SLURM_*` ones, the named ones and its `NAME=value` assignments. Inside `srun bash -c '...'` each "
    "task's shell expands its own words, so a variable the batch script exported but `--export` leaves "
    "out is empty there: `--dist-init-addr $HEAD:5000` becomes `--dist-init-addr :5000`. A step also "
    "inherits `#SBATCH --export` through SLURM_EXPORT_ENV.",
    fix="name the variable in --export (--export=ALL, or --export=HEAD,...), or write its value into the "
    "task's command",
    example=_batch(f"srun --export=NONE bash -c '{_SRUN_SG} --nnodes 2 --node-rank $SLURM_NODEID'"),
    correct=_batch(f"srun --export=HEAD bash -c '{_SRUN_SG} --nnodes 2 --node-rank $SLURM_NODEID'"),
)


PA_EXPORT_IGNORED = Rule(
    code="PA038",
    layer="parser",
    severity="warning",
    title="srun --export=ALL,NAME=value does not override an exported NAME",
    rationale="With `ALL` in `srun --export`, every variable of the caller reaches the tasks and, srun(1) "
    'says, "will take precedence over any explicitly given environment variables": '
    "`--export=ALL,NCCL_DEBUG=INFO` after `export NCCL_DEBUG=WARN` runs the tasks with WARN. The "
    "assignment reads like an override and is none.",
    fix="leave ALL out (--export=NAME=value,... passes the SLURM_* variables, the named ones and the "
    "assignments), or set the variable before srun",
    example=_batch(
        f"export NCCL_DEBUG=WARN\nsrun --export=ALL,NCCL_DEBUG=INFO bash -c '{_SRUN_SG} --nnodes 2 "
        "--node-rank $SLURM_NODEID'"
    ),
    correct=_batch(
        f"export NCCL_DEBUG=WARN\nsrun --export=HEAD,NCCL_DEBUG=INFO bash -c '{_SRUN_SG} --nnodes 2 "
        "--node-rank $SLURM_NODEID'"
    ),
)


PA_TASKS_SHARE_GPUS = Rule(
    code="PA039",
    layer="parser",
    severity="warning",
    title="Several SGLang nodes or vLLM data parallel ranks of one launch on a machine take the same GPUs",
    rationale="Each `sglang.launch_server` of a multi-node launch uses the GPUs from `--base-gpu-id` "
    "(default 0) on, among those it sees. An `srun` step with several tasks per node, each one node of the "
    "launch, gives every task the same devices unless each gets its own (`CUDA_VISIBLE_DEVICES` for the "
    "task, `srun --gpus-per-task` or `--gpu-bind`): the tasks of a machine then put ranks of one NCCL "
    'communicator on one GPU, and NCCL refuses it ("Duplicate GPU detected"). A vLLM data parallel rank '
    "started as its own process (`--data-parallel-rank N`, external load balancing) runs one engine as "
    "local DP rank 0 on the first tp x pp GPUs it sees: ranks sharing a machine load the model on the same "
    "GPUs unless each gets its own, as vLLM's data parallel deployment guide does with "
    "`CUDA_VISIBLE_DEVICES` per co-located rank. Likewise the starts of one vLLM data parallel launch that "
    "a script runs on one machine (its own lines, or ssh lines to one host): each puts its "
    "`--data-parallel-size-local` engines on the first tp x pp GPUs per engine it sees.",
    fix="give each task its own GPUs: srun --gpus-per-task N, or --base-gpu-id $((SLURM_LOCALID * N)) in the "
    "task's command",
    example=_batch(f"srun bash -c '{_SRUN_SG} --nnodes 4 --node-rank $SLURM_PROCID'", tasks_per_node=2),
    correct=_batch(
        f"srun --gpus-per-task=4 bash -c '{_SRUN_SG} --nnodes 4 --node-rank $SLURM_PROCID'", tasks_per_node=2
    ),
    exceptions="A warning, not an error: a cluster may bind each task to its own GPUs by default (a "
    "`--gpu-bind` in its SLURM configuration), which the script does not show. Only SGLang nodes (and vLLM "
    "`--data-parallel-rank` processes) whose rank comes from the task's own SLURM_PROCID/NODEID/LOCALID are "
    "judged, and vLLM data parallel starts of one launch on one machine (an ssh destination from a "
    "variable names no machine).",
)


def _pod_index(kind: str) -> Example:
    # The rank from a downward-API env var of the pod-index label, as SGLang's StatefulSet example does.
    manifest = (
        "apiVersion: apps/v1\n"
        f"kind: {kind}\n"
        "metadata:\n"
        "  name: sglang\n"
        "spec:\n"
        "  replicas: 2\n"
        "  template:\n"
        "    spec:\n"
        "      containers:\n"
        "        - name: server\n"
        "          image: lmsysorg/sglang:v0.5.10.post1\n"
        "          env:\n"
        "            - name: POD_INDEX\n"
        "              valueFrom:\n"
        "                fieldRef:\n"
        "                  fieldPath: metadata.labels['apps.kubernetes.io/pod-index']\n"
        '          command: ["/bin/bash", "-c"]\n'
        "          args:\n"
        "            - python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --tp 16"
        " --dist-init-addr sglang-0.sglang:5000 --nnodes 2 --node-rank $POD_INDEX\n"
        "          resources:\n"
        "            limits:\n"
        '              nvidia.com/gpu: "8"\n'
    )
    return Example(argv=("check", *_V, "--no-resolve", "server.yaml"), files={"server.yaml": manifest})


PA_NO_POD_INDEX = Rule(
    code="PA040",
    layer="parser",
    severity="error",
    title="A server's rank reads a pod-index label its pods do not have",
    rationale="The `apps.kubernetes.io/pod-index` and `statefulset.kubernetes.io/pod-name` labels are set by "
    "the StatefulSet controller on its pods (Kubernetes docs, StatefulSets, Pod index label); an Indexed "
    "Job's pods get `batch.kubernetes.io/job-completion-index` instead. A Deployment's, ReplicaSet's, "
    "DaemonSet's or plain Job's pods have neither, and a downward-API `fieldRef` to a label the pod lacks "
    "gives the empty string: the rank flag that reads it gets no number (`--node-rank` with an empty word "
    "is refused, or takes the next flag as its value), and no pod can tell its rank from another's.",
    fix="run the nodes as a StatefulSet (or a LeaderWorkerSet with `--node-rank $(LWS_WORKER_INDEX)`, or an "
    "Indexed Job with `$JOB_COMPLETION_INDEX`)",
    example=_pod_index("Deployment"),
    correct=_pod_index("StatefulSet"),
    exceptions="A template that sets the label itself gives every pod that value (then PA035 judges the "
    "replicas). Only rank flags (`--node-rank`, `--data-parallel-rank`, `--data-parallel-start-rank`) that "
    "read the variable are judged.",
)

PA_OWN_HOST_RENDEZVOUS = Rule(
    code="PA045",
    layer="parser",
    severity="warning",
    title="A node other than rank 0 names its own host as the rendezvous",
    rationale="Every node of a multi-node launch meets the others at rank 0's address: SGLang's "
    "`--dist-init-addr` is the store rank 0 serves, vLLM's `--master-addr` (with `--node-rank`) and the "
    "`--data-parallel-address` of `--headless` ranks name the head. Written `$(hostname):5000`, "
    "`$(hostname -I | awk ...)` or `$HOSTNAME` on the command of a node whose rank is not 0, the node's own "
    "shell expands it to that node's own name: it waits for a rendezvous on itself while rank 0 serves it "
    "on another machine, and the launch hangs (sgl-project/sglang#3206). A warning: it rests on rank 0 "
    "running on another machine.",
    fix="give every node rank 0's address, the same text on each (a variable set once from the head's name, "
    "e.g. `scontrol show hostnames $SLURM_JOB_NODELIST | head -n1` in a batch script)",
    example=Example(
        argv=(
            "check",
            *_V,
            "--no-resolve",
            "-c",
            f"{_NODE.rsplit(' ', 2)[0]} --dist-init-addr $(hostname):5000 "
            "--tp-size 16 --nnodes 2 --node-rank 1",
        ),
    ),
    correct=Example(
        argv=("check", *_V, "--no-resolve", "-c", f"{_NODE} --tp-size 16 --nnodes 2 --node-rank 1"),
    ),
    exceptions="Rank 0 itself may name its own host (it serves the rendezvous there). Two ranks started on "
    "one machine meet at its name; then nothing is wrong.",
)

_VLLM_NODE = "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 8 --nnodes 2 --master-addr 10.0.0.1"

PA_HEADLESS_WITHOUT_RANK = Rule(
    code="PA046",
    layer="parser",
    severity="warning",
    title="A vLLM --headless node of a --nnodes launch without --node-rank",
    rationale="vLLM's multi-node launch without Ray (`--nnodes`, `--node-rank`, `--master-addr`) runs the "
    "API server on node 0 and `--headless` on the others; `--node-rank` defaults to 0. A headless start "
    "that gives no rank is node 0 again: it takes the head's place in the distributed group and, as "
    "`run_headless` does for node 0, starts a data parallel engine that waits for a front end (vLLM 0.33.0 "
    "`entrypoints/cli/serve.py`), while the head waits for its real worker: the launch hangs "
    '(MiaAI-Lab/Qwen3.8-Flash-Next-Dual-DGX-Sparks#48, whose worker logged "Inferred data_parallel_rank 0 '
    'from node_rank 0"). A warning: a file per node shows one node, and a headless rank-0 engine behind an '
    "API-only head is a layout of its own.",
    fix="give each worker node its own --node-rank, 1 to nnodes-1 (the head keeps 0)",
    example=Example(argv=("check", "--no-resolve", "-c", f"{_VLLM_NODE} --headless")),
    correct=Example(argv=("check", "--no-resolve", "-c", f"{_VLLM_NODE} --node-rank 1 --headless")),
    exceptions="A rank written explicitly (`--node-rank 0`, `--data-parallel-rank`, "
    "`--data-parallel-start-rank`) is taken as meant.",
)

_BATCH = (
    "#!/bin/bash\n"
    "# after vLLM's docs (a one-node server) under a SLURM batch job\n"
    "#SBATCH --nodes={nodes}\n"
    "#SBATCH --gpus-per-node=4\n"
    "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4 --port 8000\n"
)

PA_IDLE_JOB_NODES = Rule(
    code="PA047",
    layer="parser",
    severity="warning",
    title="A multi-node SLURM job whose batch shell starts a one-node server",
    rationale="SLURM runs the batch script once, on the first node of the allocation (sbatch(1)). A server "
    "the batch shell starts itself (no `srun`) runs there; when it spans no nodes (no `--nnodes`, no vLLM "
    "data parallel address or Ray backend) and its GPUs fit on one node, the job's other nodes are "
    "allocated, billed for the walltime and never used (Center-for-AI-Innovation/LLMFlux#141). A warning: "
    "another step of the script may use them.",
    fix="ask for one node (`#SBATCH --nodes=1`), or start the server on every node as a multi-node launch "
    "(one `srun` task per node with `--nnodes`/`--node-rank`)",
    example=Example(files={"job.sh": _BATCH.format(nodes=2)}, argv=("check", "--no-resolve", "job.sh")),
    correct=Example(files={"job.sh": _BATCH.format(nodes=1)}, argv=("check", "--no-resolve", "job.sh")),
    exceptions="A server that spans the job's nodes by itself (`--nnodes`, a Ray backend, a data parallel "
    "address) or needs more GPUs than one node has is not judged; nor is a script with any `srun` start.",
)

_DP_HEAD = (
    "vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 2 --data-parallel-size-local 1 "
    "--data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13345"
)
_DP_WORKER = (
    "vllm serve Qwen/Qwen3-30B-A3B --headless --data-parallel-size 2 --data-parallel-size-local 1 "
    "--data-parallel-start-rank 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13345"
)


def _dp_pair(head: str) -> Example:
    # both nodes' starts in one file, each on its own machine
    text = f"#!/bin/bash\nssh node0 {head} &\nssh node1 {_DP_WORKER} &\nwait\n"
    return Example(
        argv=("check", "--framework-version", "0.29.0", "--no-resolve", "dp.sh"), files={"dp.sh": text}
    )


PA_DP_MODE = Rule(
    code="PA054",
    layer="parser",
    severity="error",
    title="A vLLM data parallel start whose flags select a load-balancing mode its release then refuses",
    rationale="vLLM reads a data parallel start's load-balancing mode from its flags "
    "(`EngineArgs.create_engine_config`): a start that is not `--headless` and gives "
    "`--data-parallel-start-rank` is taken for a hybrid load-balanced node, switched to external load "
    "balancing with `--data-parallel-size-local 1`; in both modes every node serves its own API and the "
    "head's handshake refuses a remote engine started with `--headless` (\"Remote engine N must not use "
    '--headless in external or hybrid dp lb mode", `vllm/v1/engine/utils.py`). Some releases test the '
    "start rank's bare value (rank 0 leaves the internal-LB head), later ones `is not None`, so a head "
    "written with `--data-parallel-start-rank 0` next to `--headless` workers fails on those "
    "(gpustack/gpustack#6221 on 0.29.0). A `--headless` start given `--api-server-count` above the "
    "release's bound is refused by `vllm/entrypoints/cli/serve.py` (vllm-project/vllm-ascend#14082). Each "
    "release's code is read from its wheel by scripts/gen_vllm_dp_launch.py. An error when the file holds "
    "the refused headless start too (the mode inferred, or written out with `--data-parallel-rank`, "
    "`--data-parallel-external-lb` or `--data-parallel-hybrid-lb`); a warning, resting on the other nodes "
    "being `--headless` (the internal-LB layout of vLLM's guide), for a head written with start rank 0 "
    "alone.",
    fix="remove --data-parallel-start-rank from the head (or start the other nodes without --headless); "
    "remove --api-server-count from a --headless start",
    example=_dp_pair(f"{_DP_HEAD} --data-parallel-start-rank 0"),
    correct=_dp_pair(_DP_HEAD),
    exceptions="A mode written out (`--data-parallel-rank`, `--data-parallel-external-lb`, "
    "`--data-parallel-hybrid-lb`) is taken as meant unless a headless start of its launch is in the file, "
    "and so is a start rank above 0 on a node whose file "
    "holds no headless peer, or a head whose other nodes in the file serve their own APIs (a hybrid "
    "layout). A release whose wheel was not read gives nothing.",
)
