# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/034a9f7552cfaeea54b7e3fb0b19fe062df92c25/06_gpu_and_ml/llm-serving/sglang_vlm.py
# Modal's SGLang VLM example (2026): lmsysorg/sglang:v0.5.10.post1-cu130-runtime, Qwen3.6-35B-A3B-FP8 (a hybrid
# model) with `--context-length 131_072` (an int with an underscore, as Python's int() reads it),
# `--mamba-scheduler-strategy extra_buffer`, MTP with the abbreviated `--speculative-algo`, the list joined
# for a shell by a function the server class calls; kept: the image, its environment, the command; dropped:
# the DeepGEMM build step, the warm-up and the client.
import subprocess
import time

import modal

MINUTES = 60

sglang_image = modal.Image.from_registry("lmsysorg/sglang:v0.5.10.post1-cu130-runtime").entrypoint([])

MODEL_NAME = "Qwen/Qwen3.6-35B-A3B-FP8"
MODEL_REVISION = "95a723d08a9490559dae23d0cff1d9466213d989"

GPU = "H100!:1"
N_GPUS = 1

HF_CACHE_VOL = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
HF_CACHE_PATH = "/root/.cache/huggingface"

sglang_image = sglang_image.env(
    {
        "HF_HUB_CACHE": HF_CACHE_PATH,
        "HF_XET_HIGH_PERFORMANCE": "1",
        "SGLANG_ENABLE_JIT_DEEPGEMM": "1",
        "SGLANG_USE_CUDA_IPC_TRANSPORT": "1",
        "SGLANG_USE_IPC_POOL_HANDLE_CACHE": "1",
    }
)

PORT = 8000
TARGET_INPUTS = 10

app = modal.App(name="example-sglang-vlm")


@app.server(
    image=sglang_image,
    gpu=GPU,
    volumes={HF_CACHE_PATH: HF_CACHE_VOL},
    startup_timeout=15 * MINUTES,
    port=PORT,
    target_concurrency=TARGET_INPUTS,
)
class VlmServer:
    @modal.enter()
    def startup(self):
        self.process = _start_server()
        time.sleep(1)

    @modal.exit()
    def stop(self):
        self.process.terminate()
        self.process.wait()


def _start_server() -> subprocess.Popen:
    """Start the SGLang server in a subprocess"""
    cmd = [
        "python",
        "-m",
        "sglang.launch_server",
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
        "--tp",
        f"{N_GPUS}",
        "--cuda-graph-max-bs",
        f"{TARGET_INPUTS * 2}",
        "--enable-metrics",
        "--mem-fraction-static",
        "0.8",
        "--context-length",
        "131_072",
        "--mamba-scheduler-strategy",
        "extra_buffer",
        "--reasoning-parser",
        "qwen3",
        "--tool-call-parser",
        "qwen3_coder",
        "--speculative-algo",
        "EAGLE",
        "--speculative-num-steps",
        "3",
        "--speculative-eagle-topk",
        "1",
        "--speculative-num-draft-tokens",
        "4",
    ]

    print(*cmd)
    return subprocess.Popen(" ".join(cmd), shell=True, start_new_session=True)
