# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/034a9f7552cfaeea54b7e3fb0b19fe062df92c25/06_gpu_and_ml/llm-serving/nemotron_inference.py
# Modal's Nemotron 3 example (2026): lmsysorg/sglang:v0.5.11, Nemotron-3-Ultra NVFP4 on four B200s, `sglang
# serve`, the command a list plus `server_args` (itself `spec_args + [...]`), MTP through EAGLE, FP8/FP4 GEMM and
# MoE runner backends, SGLANG_ENABLE_SPEC_V2 on the image; kept: the image, its environment, the command;
# dropped: the prose, the warm-up and the client.
import subprocess
import time

import modal

MINUTES = 60

sglang_image = (
    modal.Image.from_registry("lmsysorg/sglang:v0.5.11")
    .entrypoint([])
    .run_commands("rm -rf /root/.cache/huggingface")
)

MODEL_NAME = "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4"
hf_secret = modal.Secret.from_name("huggingface-secret")

HF_CACHE_VOL = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
HF_CACHE_PATH = "/root/.cache/huggingface"
sglang_image = sglang_image.env({"HF_HUB_CACHE": HF_CACHE_PATH, "HF_XET_HIGH_PERFORMANCE": "1"})

GPU_TYPE, N_GPUS = "B200", 4
GPU = f"{GPU_TYPE}:{N_GPUS}"

MIN_CONTAINERS = 0
TARGET_INPUTS = 16

sglang_image = sglang_image.env(
    {
        "SAFETENSORS_FAST_GPU": "1",
        "NVIDIA_TF32_OVERRIDE": "1",
        "SGLANG_ENABLE_JIT_DEEPGEMM": "0",
        "SGLANG_ENABLE_SPEC_V2": "1",
    }
)

# the model's own multi-token prediction
spec_args = [
    "--speculative-algorithm",
    "EAGLE",
    "--speculative-num-steps",
    "5",
    "--speculative-eagle-topk",
    "1",
    "--speculative-num-draft-tokens",
    "5",
]

server_args = spec_args + [
    "--ep-size",
    "1",
    "--context-length",
    "262144",
    "--mem-fraction-static",
    "0.85",
    "--chunked-prefill-size",
    "32768",
    "--fp8-gemm-backend",
    "triton",
    "--fp4-gemm-backend",
    "flashinfer_trtllm",
    "--moe-runner-backend",
    "flashinfer_trtllm",
    "--disable-radix-cache",
    "--disable-piecewise-cuda-graph",
    "--kv-cache-dtype",
    "fp8_e4m3",
]

app = modal.App(name="example-nemotron-inference")
PORT = 8000


@app.server(
    image=sglang_image,
    gpu=GPU,
    volumes={HF_CACHE_PATH: HF_CACHE_VOL},
    min_containers=MIN_CONTAINERS,
    secrets=[hf_secret],
    startup_timeout=120 * MINUTES,
    port=PORT,
    exit_grace_period=15,
    target_concurrency=TARGET_INPUTS,
)
class Server:
    @modal.enter()
    def startup(self):
        cmd = [
            "sglang",
            "serve",
            "--model-path",
            MODEL_NAME,
            "--served-model-name",
            MODEL_NAME,
            "--host",
            "0.0.0.0",
            "--port",
            f"{PORT}",
            "--tp",
            f"{N_GPUS}",
            "--cuda-graph-max-bs",  # only the batch sizes likely to be seen
            f"{TARGET_INPUTS * 2}",
            "--enable-metrics",
            "--decode-log-interval",
            "10",
            "--trust-remote-code",
            "--tool-call-parser",
            "qwen3_coder",
            "--reasoning-parser",
            "nemotron_3",
        ] + server_args

        self.process = subprocess.Popen(cmd)
        time.sleep(1)

    @modal.exit()
    def stop(self):
        self.process.terminate()
