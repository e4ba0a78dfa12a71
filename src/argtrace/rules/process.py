"""Process-layer rules (PR): the server process's environment and interpreter."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_SG = "python3 -m sglang.launch_server --model-path /m"
_SG10 = ("--framework-version", "0.5.10.post1")
_SG23 = ("--framework-version", "0.5.23")


def _c(command: str, version: tuple[str, ...] = _SG10) -> Example:
    return Example(argv=("check", *version, "-c", command))


PR_UNKNOWN_ENV = Rule(
    code="PR001",
    layer="process",
    severity="warning",
    title="Framework environment variable this release does not read",
    rationale="A variable with the framework's prefix (SGLANG_, SGL_, VLLM_) that this release never "
    "reads does "
    "nothing: a typo, or a variable an older release read and this one ignores.",
    fix="use the name this release reads (the message names it: the spelling another release renamed the "
    "variable from or to, with the value inverted when ENABLE/DISABLE flips, or the nearest one), or drop "
    "the variable",
    example=_c(f"SGLANG_ENABLE_SPEC_V2=1 {_SG} --speculative-algorithm EAGLE", _SG23),
    correct=_c(f"SGLANG_ENABLE_SPEC_V2=1 {_SG} --speculative-algorithm EAGLE", _SG10),
    exceptions="A name built at run time (f-strings) may be missing from the generated list. A name the "
    "release copies to another prefix at import and reads there (SGLang 0.5.3.post3 and later copy every "
    "SGL_ variable to SGLANG_, frameworks/data/env_prefix_aliases.json) is read: PR002, a note. Severity: an "
    "error when only newer releases read the variable (the feature it asks for is missing), a warning for "
    "a leftover only older releases read (a note when its value is the default of the last release that "
    "reads it: VLLM_USE_V1=1 on a V1-only vLLM asks for nothing that is lost) or a near-miss of a name "
    "the release (or, for a name no release reads, another release) reads (a likely typo); a name "
    "no release reads that is no near-miss is the script's own or another tool's setting and only a note "
    "(vLLM 0.33.0 logs `Unknown vLLM environment variable detected` for it and goes on); one step lower when "
    "inherited from the caller rather than set by the script. An error whatever the name when vLLM's "
    "--fail-on-environ-validation is on: the release then refuses to start on any VLLM_ name it does not "
    "know.",
)

PR_DEPRECATED_ENV = Rule(
    code="PR002",
    layer="process",
    severity="warning",
    title="Deprecated environment variable",
    rationale="The release still reads the old name but has a new one; the old name goes away later.",
    fix="use the replacement name",
    example=_c(f"SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1 {_SG}"),
    correct=_c(_SG),
)

PR_ENV_FEEDS_FLAG = Rule(
    code="PR003",
    layer="process",
    severity="warning",
    title="Framework variable also used to build a flag",
    rationale="The framework reads the exported variable for its own purpose, and the script also expands it "
    "into a flag's value: one setting silently feeds two (e.g. VLLM_PORT is vLLM's internal port).",
    fix="use a variable name of your own for the flag's value",
    exceptions="A variable holding this node's address (VLLM_HOST_IP) put in a host, IP, address or URL "
    "field (`--host`, `proxy_ip` in a JSON value, `http://$VLLM_HOST_IP:8000`) means the same thing in both "
    "places: a note, not a warning. Forwarding a variable the caller already had is a note too.",
    example=Example(
        argv=("check", "--framework-version", "0.33.0", "launch.sh"),
        files={"launch.sh": "#!/bin/bash\nexport VLLM_PORT=8000\nvllm serve /m --port $VLLM_PORT\n"},
    ),
    correct=Example(
        argv=("check", "--framework-version", "0.33.0", "launch.sh"),
        files={"launch.sh": "#!/bin/bash\nPORT=8000\nvllm serve /m --port $PORT\n"},
    ),
)

PR_TOO_FEW_GPUS = Rule(
    code="PR004",
    layer="process",
    severity="error",
    title="Fewer visible GPUs than the parallel sizes need",
    rationale="CUDA_VISIBLE_DEVICES hides GPUs: with tp x dp x pp larger than the visible count the server "
    "fails at start-up.",
    fix="make CUDA_VISIBLE_DEVICES list as many GPUs as tp x dp x pp, or lower the parallel sizes",
    example=_c(f"CUDA_VISIBLE_DEVICES=0 {_SG} --tp-size 2"),
    correct=_c(f"CUDA_VISIBLE_DEVICES=0,1 {_SG} --tp-size 2"),
)

PR_EXTRA_GPUS = Rule(
    code="PR005",
    layer="process",
    severity="info",
    title="More visible GPUs than the parallel sizes use",
    rationale="Visible GPUs beyond tp x dp x pp stay idle for this server (fine when another server "
    "uses them).",
    fix="nothing if intended; otherwise narrow CUDA_VISIBLE_DEVICES",
    example=_c(f"CUDA_VISIBLE_DEVICES=0,1,2,3 {_SG} --tp-size 2"),
    correct=_c(f"CUDA_VISIBLE_DEVICES=0,1 {_SG} --tp-size 2"),
)

PR_BAD_VISIBLE_DEVICES = Rule(
    code="PR006",
    layer="process",
    severity="error",
    title="CUDA_VISIBLE_DEVICES hides every GPU or repeats one",
    rationale="An empty CUDA_VISIBLE_DEVICES hides all GPUs; a repeated index or a negative one makes CUDA "
    "stop enumerating at that point.",
    fix="list distinct GPU indices (or UUIDs), e.g. CUDA_VISIBLE_DEVICES=0,1",
    example=_c(f"CUDA_VISIBLE_DEVICES= {_SG}"),
    correct=_c(f"CUDA_VISIBLE_DEVICES=0 {_SG}"),
)

PR_NO_INTERPRETER = Rule(
    code="PR007",
    layer="process",
    severity="info",
    title="Interpreter not found here",
    rationale="The server's python (or console script) is not on the PATH the process would get on this "
    "machine, so the installed framework version could not be read, and nothing else (--framework-version, "
    "a log, --url, --pid, an image tag, a pip line) shows the release: it is unknown (PR011). Once anything "
    "else decides the release, this is no finding, unless the server gets no PATH at all.",
    fix="pass --python PATH or --framework-version V",
    example=_c("/nonexistent/venv/bin/python -m sglang.launch_server --model-path /m", ()),
    correct=_c(_SG),
)

PR_VERSION_NOT_BUNDLED = Rule(
    code="PR008",
    layer="process",
    severity="info",
    title="Framework version without a bundled schema",
    rationale="argtrace analyses with the bundled parser schema of the release's family (vLLM's minor, "
    "SGLang's 0.5.N: the last patch is bundled), else the nearest older one; flags added or removed in "
    "between may be misjudged, and what the parser says then rests on that stand-in (a warning at most, "
    "naming it). A note, about argtrace's reach rather than the launch: a correct launch of a release "
    "older or newer than every bundled one gets no warning.",
    fix="pass --framework-version with a bundled version",
    example=_c(_SG, ("--framework-version", "0.3.6")),
    correct=_c(_SG, _SG10),
)

PR_ENV_VALUE = Rule(
    code="PR009",
    layer="process",
    severity="warning",
    title="Framework variable with a value of the wrong type",
    rationale="The framework converts the variable where it reads it (int(...), float(...), a "
    "boolean parser): "
    "a value of the wrong type makes that read fail or fall back, so the setting never takes effect.",
    fix="give the variable a value of the type named in the message",
    example=Example(argv=("check", "--framework-version", "0.33.0", "-c", "VLLM_PORT=eight vllm serve /m")),
    correct=Example(argv=("check", "--framework-version", "0.33.0", "-c", "VLLM_PORT=8000 vllm serve /m")),
)


PR_RELEASE_CONFLICT = Rule(
    code="PR010",
    layer="process",
    severity="warning",
    title="The release named differs from what the launch shows",
    rationale="`--framework-version` decides the flags, variables and code argtrace checks against; an image "
    "tag, an installed package, a `pip install` line or the log of the launch naming another release means "
    "one of the two is not what the node runs, and the verdicts of the other release do not apply.",
    fix="Pass the release the node really runs (`--framework-version`), or change the image or pin.",
    example=Example(
        argv=(
            "check",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            "docker run --gpus all lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path /m",
        )
    ),
    correct=Example(
        argv=(
            "check",
            "--framework-version",
            "0.5.23",
            "-c",
            "docker run --gpus all lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path /m",
        )
    ),
)

PR_RELEASE_UNKNOWN = Rule(
    code="PR011",
    layer="process",
    severity="info",
    title="Nothing shows which release runs",
    rationale="With no `--framework-version`, version line in a log, installed package, image tag or "
    "`pip install` pin, argtrace does not know the release. It analyses the launch as the newest bundled "
    "release that accepts every flag and variable of it and says which releases would refuse or ignore one, "
    "and which names no bundled release knows (a misspelling, or a newer release's: they decide nothing), "
    "instead of judging the launch by a release it merely assumed.",
    fix="Pass --framework-version with the release the node runs.",
    example=Example(argv=("check", "-c", "python3 -m sglang.launch_server --model-path /m")),
    correct=Example(
        argv=(
            "check",
            "--framework-version",
            "0.5.23",
            "-c",
            "python3 -m sglang.launch_server --model-path /m",
        )
    ),
)

PR_DEVICE_VARIABLE = Rule(
    code="PR012",
    layer="process",
    severity="warning",
    title="Device-selection variable that nothing in this process reads",
    rationale="Each accelerator runtime reads its own variable to choose the devices a process sees: "
    "CUDA_VISIBLE_DEVICES for NVIDIA (and, through HIP, AMD), HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES "
    "for AMD, ASCEND_RT_VISIBLE_DEVICES for Ascend NPUs, ZE_AFFINITY_MASK for Intel GPUs, "
    "HABANA_VISIBLE_MODULES for Gaudi, TPU_VISIBLE_CHIPS for TPUs. A misspelt name, another vendor's "
    "variable, or a container runtime's variable (ASCEND_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES: read when "
    "a container is created, not by the process) selects nothing: the server uses every device it can see, "
    "often ones another process holds. The names are generated from Ray's accelerator managers, ROCm's HIP "
    "and HSA runtimes and the Ascend and NVIDIA container runtimes (scripts/gen_device_variables.py).",
    fix="use the variable the launch's accelerator runtime reads (the message names it)",
    example=_c(f"ASCEND_RT_VISIBLE_DEVICE=0 {_SG} --device npu"),
    correct=_c(f"ASCEND_RT_VISIBLE_DEVICES=0 {_SG} --device npu"),
    exceptions="Another vendor's variable is named only when the launch shows its accelerator (a container's "
    "device files such as /dev/davinci4 or /dev/kfd, or the server's --device npu/hpu/xpu/tpu); a "
    "container runtime's variable only where the server starts in no container this launch creates. A "
    "misspelling is a name one edit from a known variable (two when the vendor word is the same) that the "
    "framework release does not read. A variable inherited from the caller is left alone.",
    basis="static",
)
