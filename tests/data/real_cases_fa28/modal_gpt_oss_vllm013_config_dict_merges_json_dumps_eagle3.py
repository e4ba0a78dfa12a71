# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/0a2dfb01ebe15d083b7e28227318ba80e9984bfe/06_gpu_and_ml/llm-serving/gpt_oss_inference.py
# Modal's gpt-oss example (2025-2026): `vllm==0.13.0` pinned, gpt-oss-20b on a B200 with an EAGLE3 speculator
# and a compilation config passed through json.dumps, the other settings in a dict grown by `|=` and spread
# into the command by a comprehension, FAST_BOOT = False picking --no-enforce-eager; kept: the image, the
# settings and the command; dropped: the prose and the client.
import json

import modal

vllm_image = (
    modal.Image.from_registry("nvidia/cuda:12.8.1-devel-ubuntu22.04", add_python="3.12")
    .entrypoint([])
    .uv_pip_install("vllm==0.13.0", "huggingface_hub[hf_transfer]==0.36.0")
    .env({"VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8": "1"})  # Blackwell MoE kernels
)

MODEL_NAME = "openai/gpt-oss-20b"
MODEL_REVISION = "d666cf3b67006cf8227666739edf25164aaffdeb"

hf_cache_vol = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
vllm_cache_vol = modal.Volume.from_name("vllm-cache", create_if_missing=True)

VLLM_CONFIG = {"stream-interval": 20}  # tokens returned in chunks of 20

SPECULATIVE_CONFIG = {
    "model": "RedHatAI/gpt-oss-20b-speculator.eagle3",
    "num_speculative_tokens": 7,
    "method": "eagle3",
}

VLLM_CONFIG |= {"kv-cache-dtype": "fp8"}

FAST_BOOT = False

COMPILATION_CONFIG = {"pass_config": {"fuse_allreduce_rms": True, "eliminate_noops": True}}

MAX_INPUTS = 32
VLLM_CONFIG |= {"max-cudagraph-capture-size": MAX_INPUTS}

VLLM_CONFIG |= {
    "max-num-batched-tokens": 16384,
    "max-model-len": 32768,
}

app = modal.App("example-gpt-oss-inference")

N_GPU = 1
MINUTES = 60
VLLM_PORT = 8000


@app.function(
    image=vllm_image,
    gpu=f"B200:{N_GPU}",
    scaledown_window=10 * MINUTES,
    timeout=30 * MINUTES,
    volumes={"/root/.cache/huggingface": hf_cache_vol, "/root/.cache/vllm": vllm_cache_vol},
)
@modal.concurrent(max_inputs=MAX_INPUTS)
@modal.web_server(port=VLLM_PORT, startup_timeout=30 * MINUTES)
def serve():
    import subprocess

    cmd = [
        "vllm",
        "serve",
        MODEL_NAME,
        "--revision",
        MODEL_REVISION,
        "--served-model-name",
        MODEL_NAME,
        "llm",
        "--host",
        "0.0.0.0",
        "--port",
        str(VLLM_PORT),
        "--async-scheduling",
    ]

    cmd += ["--enforce-eager" if FAST_BOOT else "--no-enforce-eager"]
    cmd += ["--tensor-parallel-size", str(N_GPU)]
    cmd += ["--compilation-config", json.dumps(COMPILATION_CONFIG)]
    cmd += ["--speculative-config", json.dumps(SPECULATIVE_CONFIG)]
    cmd += [item for k, v in VLLM_CONFIG.items() for item in (f"--{k}", str(v))]

    print(*cmd)
    subprocess.Popen(cmd)
