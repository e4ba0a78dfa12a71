# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/b3624f1ea5ee5e14fc02f0ab1a1e97e4f8514e22/06_gpu_and_ml/llm-serving/nemotron_30b_inference.py: the image, model, GPU and the server's Popen as posted; prose and the client cut
import subprocess
import time

import modal
import modal.experimental

MINUTES = 60

sglang_image = (
    modal.Image.from_registry("lmsysorg/sglang:v0.5.11")
    .entrypoint([])
    .run_commands("rm -rf /root/.cache/huggingface")
)

MODEL_NAME = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"
MODEL_REVISION = "cbd3fa9f933d55ef16a84236559f4ee2a0526848"

hf_secret = modal.Secret.from_name("huggingface-secret")
HF_CACHE_VOL = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
HF_CACHE_PATH = "/root/.cache/huggingface"

sglang_image = sglang_image.env({"HF_HUB_CACHE": HF_CACHE_PATH, "HF_XET_HIGH_PERFORMANCE": "1"})

GPU_TYPE, N_GPUS = "H100", 1
GPU = f"{GPU_TYPE}:{N_GPUS}"
REGION = "us"
PROXY_REGION = "us-west"
MIN_CONTAINERS = 0
TARGET_INPUTS = 16

with sglang_image.imports():
    import requests


def wait_ready(process: subprocess.Popen, timeout: int = 20 * MINUTES):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if process.poll() is not None:
                raise subprocess.CalledProcessError(process.returncode, cmd=process.args)
            requests.get(f"http://127.0.0.1:{PORT}/health").raise_for_status()
            return
        except (requests.exceptions.ConnectionError, requests.exceptions.HTTPError):
            time.sleep(5)
    raise TimeoutError(f"SGLang server not ready within {timeout} seconds")


server_args = [
    "--context-length",
    "131072",
    "--mem-fraction-static",
    "0.85",
    "--chunked-prefill-size",
    "32768",
    "--trust-remote-code",
]

app = modal.App(name="example-nemotron-30b-inference")
PORT = 8000


@app.cls(
    image=sglang_image,
    gpu=GPU,
    volumes={HF_CACHE_PATH: HF_CACHE_VOL},
    region=REGION,
    min_containers=MIN_CONTAINERS,
    secrets=[hf_secret],
    startup_timeout=20 * MINUTES,
)
@modal.experimental.http_server(port=PORT, proxy_regions=[PROXY_REGION], exit_grace_period=15)
@modal.concurrent(target_inputs=TARGET_INPUTS)
class Server:
    @modal.enter()
    def startup(self):
        cmd = [
            "sglang",
            "serve",
            "--model-path",
            MODEL_NAME,
            "--revision",
            MODEL_REVISION,
            "--served-model-name",
            MODEL_NAME,
            "--host",
            "0.0.0.0",
            "--port",
            f"{PORT}",
            "--cuda-graph-max-bs",
            f"{TARGET_INPUTS * 2}",
            "--enable-metrics",
            "--decode-log-interval",
            "10",
        ] + server_args

        self.process = subprocess.Popen(cmd)
        wait_ready(self.process)

    @modal.exit()
    def stop(self):
        self.process.terminate()
