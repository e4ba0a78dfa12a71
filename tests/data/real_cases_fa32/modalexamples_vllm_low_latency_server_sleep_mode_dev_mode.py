# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/c48badf0c433e1eb1655d61f0c27cf71536bf7ca/06_gpu_and_ml/llm-serving/vllm_low_latency_server.py (2025-12): the image (vllm 0.11.2, VLLM_SERVER_DEV_MODE for the sleep endpoints), the server class and its command as posted (a flag before the model); prose comments, the readiness helpers and the client dropped
import subprocess

import modal

MINUTES = 60

vllm_image = (
    modal.Image.from_registry("nvidia/cuda:12.4.0-devel-ubuntu22.04", add_python="3.11")
    .uv_pip_install("vllm==0.11.2", "huggingface-hub==0.36.0")
    .env(
        {
            "VLLM_SERVER_DEV_MODE": "1",
            "TORCH_CPP_LOG_LEVEL": "FATAL",
        }
    )
)

GPU = "H100"

MODEL_NAME = "Qwen/Qwen3-8B"
MODEL_REVISION = "b968826d9c46dd6066d109eabc6255188de91218"

HF_CACHE_VOL = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
HF_CACHE_PATH = "/root/.cache/huggingface"

vllm_image = vllm_image.env({"HF_HUB_CACHE": HF_CACHE_PATH, "HF_XET_HIGH_PERFORMANCE": "1"})

REGION = "us-east"
MIN_CONTAINERS = 0
TARGET_INPUTS = 20
PORT = 8000

APP_NAME = "example-vllm-low-latency"
app = modal.App(name=APP_NAME)


@app._experimental_server(
    image=vllm_image,
    gpu=GPU,
    volumes={HF_CACHE_PATH: HF_CACHE_VOL},
    enable_memory_snapshot=True,
    experimental_options={"enable_gpu_snapshot": True},
    region=REGION,
    min_containers=MIN_CONTAINERS,
    startup_timeout=10 * MINUTES,
    port=PORT,
    routing_regions=[REGION],
    exit_grace_period=5,
    target_concurrency=TARGET_INPUTS,
)
class VLLM:
    @modal.enter(snap=True)
    def startup(self):
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

    @modal.exit()
    def stop(self):
        self.process.terminate()
