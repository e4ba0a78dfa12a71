# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/02db37b96382e65640a309a8196bc1ad186c197d/06_gpu_and_ml/llm-serving/sglang_low_latency.py
# Modal's low-latency SGLang example (2026-04): lmsysorg/sglang:v0.5.9 image, Qwen3.5-35B-A3B-FP8 on two H100s,
# the EAGLE settings kept in a dict merged with `|=` and spread into the command by a comprehension, f-string
# numbers; kept: the image, the server command and the values it reads; dropped: the prose, the client and probes.
import subprocess
import time

import modal
import modal.experimental

MINUTES = 60

sglang_image = modal.Image.from_registry("lmsysorg/sglang:v0.5.9-cu129-amd64-runtime").entrypoint([])

GPU_TYPE, N_GPUS = "H100!", 2
GPU = f"{GPU_TYPE}:{N_GPUS}"

MODEL_NAME = "Qwen/Qwen3.5-35B-A3B-FP8"
MODEL_REVISION = "0b2752837483aa34b3db6e83e151b150c0e00e49"

HF_CACHE_VOL = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
HF_CACHE_PATH = "/root/.cache/huggingface"
sglang_image = sglang_image.env({"HF_HUB_CACHE": HF_CACHE_PATH, "HF_XET_HIGH_PERFORMANCE": "1"})
sglang_image = sglang_image.env({"SGLANG_ENABLE_JIT_DEEPGEMM": "1"})

speculative_config = {
    "speculative-algorithm": "EAGLE",
}
# the cookbook's defaults for this speculator
speculative_config |= {
    "speculative-num-steps": 3,
    "speculative-eagle-topk": 1,
    "speculative-num-draft-tokens": 4,
}

REGION = "us-east"
MIN_CONTAINERS = 0
TARGET_INPUTS = 10

app = modal.App(name="example-sglang-low-latency")
PORT = 8000


@app.cls(image=sglang_image, gpu=GPU, volumes={HF_CACHE_PATH: HF_CACHE_VOL}, region=REGION,
         min_containers=MIN_CONTAINERS)
@modal.experimental.http_server(port=PORT, proxy_regions=[REGION], exit_grace_period=15)
@modal.concurrent(target_inputs=TARGET_INPUTS)
class SGLang:
    @modal.enter()
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
            "--tp",  # every GPU splits the tensor-parallel work
            f"{N_GPUS}",
            "--cuda-graph-max-bs",  # only the batch sizes likely to be seen
            f"{TARGET_INPUTS * 2}",
            "--enable-metrics",
            "--decode-log-interval",
            "100",
            "--mem-fraction",  # room for the draft
            "0.8",
        ]

        cmd += [item for k, v in speculative_config.items() for item in (f"--{k}", str(v))]

        self.process = subprocess.Popen(cmd)
        time.sleep(1)

    @modal.exit()
    def stop(self):
        self.process.terminate()
