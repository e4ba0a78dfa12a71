# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/034a9f7552cfaeea54b7e3fb0b19fe062df92c25/06_gpu_and_ml/llm-serving/vllm_low_latency.py
# Modal's low-latency vLLM example (2025-12): `vllm==0.11.2` pinned in the image, VLLM_SERVER_DEV_MODE for the
# sleep endpoints, the model written after `--uvicorn-log-level error` with --served-model-name (refused only
# from vLLM 0.17.1, PR #34973), --enable-sleep-mode for GPU snapshots, the list given to Popen; kept: the image,
# the command and the values it reads; dropped: the prose, the warm-up, sleep and wake calls, the client.
import subprocess
import time

import modal

MINUTES = 60

vllm_image = (
    modal.Image.from_registry("nvidia/cuda:12.4.0-devel-ubuntu22.04", add_python="3.11")
    .uv_pip_install("vllm==0.11.2", "huggingface-hub==0.36.0")
    .env({"VLLM_SERVER_DEV_MODE": "1", "TORCH_CPP_LOG_LEVEL": "FATAL"})
)

GPU = "H100"

MODEL_NAME = "Qwen/Qwen3-8B"
MODEL_REVISION = "b968826d9c46dd6066d109eabc6255188de91218"  # pinned, as of 2025-12-16

HF_CACHE_VOL = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
HF_CACHE_PATH = "/root/.cache/huggingface"
vllm_image = vllm_image.env({"HF_HUB_CACHE": HF_CACHE_PATH, "HF_XET_HIGH_PERFORMANCE": "1"})

REGION = "us-east"
MIN_CONTAINERS = 0
TARGET_INPUTS = 20
PORT = 8000

APP_NAME = "example-server-vllm-low-latency"
app = modal.App(name=APP_NAME)


@app.server(
    image=vllm_image,
    gpu=GPU,
    volumes={HF_CACHE_PATH: HF_CACHE_VOL},
    enable_memory_snapshot=True,
    experimental_options={"enable_gpu_snapshot": True},
    min_containers=MIN_CONTAINERS,
    startup_timeout=10 * MINUTES,
    port=PORT,
    target_concurrency=TARGET_INPUTS,
)
class VLLM:
    @modal.enter(snap=True)
    def startup(self):
        """Start vLLM, wait for it, then put it to sleep for the snapshot."""
        cmd = [
            "vllm",
            "serve",
            "--uvicorn-log-level",
            "error",
            MODEL_NAME,
            "--revision",
            MODEL_REVISION,
            "--served-model-name",
            MODEL_NAME,
            "--host",
            "0.0.0.0",
            "--port",
            f"{PORT}",
            "--disable-uvicorn-access-log",
            "--disable-log-requests",
            "--enable-sleep-mode",
        ]

        self.process = subprocess.Popen(cmd)
        time.sleep(1)

    @modal.exit()
    def stop(self):
        self.process.terminate()
