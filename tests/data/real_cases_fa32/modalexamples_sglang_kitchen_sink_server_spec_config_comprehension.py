# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/c48badf0c433e1eb1655d61f0c27cf71536bf7ca/06_gpu_and_ml/llm-serving/sglang_kitchen_sink_server.py (2026-01): the image, the DeepGEMM pre-compile step, the server class and its command as posted (a list extended from a dict by a comprehension); prose comments, the client and the snapshot test dropped
import subprocess
import time

import modal

MINUTES = 60

sglang_image = modal.Image.from_registry(
    "modalresearch/sglang:v0.5.7-fa4-dflash-preview"  # bleeding-edge custom SGLang build
).entrypoint([])

sglang_image.env(
    {
        "SGLANG_ENABLE_SPEC_V2": "1",
        "SGLANG_ENABLE_DFLASH_SPEC_V2": "1",
        "SGLANG_ENABLE_OVERLAP_PLAN_STREAM": "1",
    }
)

GPU_TYPE, N_GPUS = "B200", 1
GPU = f"{GPU_TYPE}:{N_GPUS}"

MODEL_NAME = "Qwen/Qwen3-8B-FP8"
MODEL_REVISION = "220b46e3b2180893580a4454f21f22d3ebb187d3"

sglang_image = sglang_image.uv_pip_install("huggingface-hub==0.36.0")

HF_CACHE_VOL = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
HF_CACHE_PATH = "/root/.cache/huggingface"

sglang_image = sglang_image.env({"HF_HUB_CACHE": HF_CACHE_PATH, "HF_XET_HIGH_PERFORMANCE": "1"})

DG_CACHE_VOL = modal.Volume.from_name("deepgemm-cache", create_if_missing=True)
DG_CACHE_PATH = "/root/.cache/deep_gemm"

sglang_image = sglang_image.env({"SGLANG_ENABLE_JIT_DEEPGEMM": "1"})


def compile_deep_gemm():
    import os

    if int(os.environ.get("SGLANG_ENABLE_JIT_DEEPGEMM", "1")):
        subprocess.run(
            f"python3 -m sglang.compile_deep_gemm --model-path {MODEL_NAME} --revision {MODEL_REVISION} --tp {N_GPUS}",
            shell=True,
        )


sglang_image = sglang_image.run_function(
    compile_deep_gemm,
    volumes={DG_CACHE_PATH: DG_CACHE_VOL, HF_CACHE_PATH: HF_CACHE_VOL},
    gpu=GPU,
)

speculative_config = {
    "speculative-algorithm": "DFLASH",
    "speculative-draft-model-path": "z-lab/Qwen3-8B-DFlash-b16",
}

sglang_image = sglang_image.env({"TORCHINDUCTOR_COMPILE_THREADS": "1"})

REGION = "us"
ROUTING_REGION = "us-west"
MIN_CONTAINERS = 0
TARGET_INPUTS = 10

app = modal.App(name="example-sglang-kitchen-sink")
PORT = 8000


@app._experimental_server(
    image=sglang_image,
    gpu=GPU,
    volumes={DG_CACHE_PATH: DG_CACHE_VOL, HF_CACHE_PATH: HF_CACHE_VOL},
    region=REGION,
    min_containers=MIN_CONTAINERS,
    enable_memory_snapshot=True,
    experimental_options={"enable_gpu_snapshot": True},
    port=PORT,
    routing_regions=[ROUTING_REGION],
    exit_grace_period=15,
    target_concurrency=TARGET_INPUTS,
)
class SGLang:
    @modal.enter(snap=True)
    def startup(self):
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
            "--max-running-requests",
            f"{TARGET_INPUTS * 4}",
            "--enable-metrics",
            "--enable-memory-saver",
            "--enable-weights-cpu-backup",
            "--decode-log-interval",
            "100",
            "--mem-fraction",
            "0.8",
            "--attention-backend",
            "fa4",
        ]

        cmd += [item for k, v in speculative_config.items() for item in (f"--{k}", str(v))]

        self.process = subprocess.Popen(cmd, start_new_session=True)

    @modal.exit()
    def stop(self):
        self.process.terminate()
