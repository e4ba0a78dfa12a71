# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/0304ede7737fcca525e16cbdb209089302ef8a69/06_gpu_and_ml/llm-serving/lfm_snapshot.py
# Modal's LFM 2 snapshot example (2026): the vllm/vllm-openai:v0.15.1 image, the model from
# `os.environ.get("MODEL_NAME", "LiquidAI/LFM2-8B-A1B")`, `--served-model-name` written twice (the model's name,
# then "llm", the name its warm-up requests use), sleep mode for GPU snapshots; kept: the image and the command;
# dropped: the prose, the warm-up, sleep and wake calls and the client.
import os
import subprocess
import time

import modal
import modal.experimental

MINUTES = 60

MODEL_NAME = os.environ.get("MODEL_NAME", "LiquidAI/LFM2-8B-A1B")

vllm_image = (
    modal.Image.from_registry("vllm/vllm-openai:v0.15.1")
    .entrypoint([])
    .run_commands("ln -s $(which python3) /usr/bin/python")
    .pip_install("transformers==5.1.0")
    .env(
        {
            "HF_HUB_CACHE": "/root/.cache/huggingface",
            "HF_XET_HIGH_PERFORMANCE": "1",
            "VLLM_SERVER_DEV_MODE": "1",
            "TORCH_CPP_LOG_LEVEL": "FATAL",
            "MODEL_NAME": MODEL_NAME,
        }
    )
)

N_GPU = 1
GPU = "H100"

hf_cache_vol = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
hf_secret = modal.Secret.from_name("huggingface-secret")
vllm_cache_vol = modal.Volume.from_name("vllm-cache", create_if_missing=True)

REGION = "us-east"
MIN_CONTAINERS = 0
TARGET_INPUTS = 32
MAX_INPUTS = 100
VLLM_PORT = 8000

app = modal.App("example-lfm-snapshot")


@app.cls(
    image=vllm_image,
    gpu=GPU,
    scaledown_window=5 * MINUTES,
    timeout=15 * MINUTES,
    volumes={"/root/.cache/huggingface": hf_cache_vol, "/root/.cache/vllm": vllm_cache_vol},
    secrets=[hf_secret],
    enable_memory_snapshot=True,
    experimental_options={"enable_gpu_snapshot": True},
    region=REGION,
    min_containers=MIN_CONTAINERS,
)
@modal.experimental.http_server(port=VLLM_PORT, proxy_regions=[REGION], exit_grace_period=5)
@modal.concurrent(target_inputs=TARGET_INPUTS)
class LfmVllmInference:
    @modal.enter(snap=True)
    def startup(self):
        cmd = [
            "vllm",
            "serve",
            MODEL_NAME,
            "--served-model-name",
            MODEL_NAME,
            "--served-model-name",
            "llm",
            "--host",
            "0.0.0.0",
            "--port",
            f"{VLLM_PORT}",
            "--dtype",
            "bfloat16",
            "--gpu-memory-utilization",
            "0.8",
            "--max-num-seqs",
            f"{MAX_INPUTS}",
            "--max-cudagraph-capture-size",
            f"{MAX_INPUTS}",
            "--enable-sleep-mode",
        ]

        print(*cmd)
        self.process = subprocess.Popen(cmd)
        time.sleep(1)

    @modal.exit()
    def stop(self):
        self.process.terminate()
