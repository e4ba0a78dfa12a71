# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/034a9f7552cfaeea54b7e3fb0b19fe062df92c25/06_gpu_and_ml/llm-serving/stepfun_inference.py
# Modal's StepFun example (2026): a model's own SGLang dev image (`lmsysorg/sglang:dev-cu13-dev-step-3.7-flash`),
# Step-3.7-Flash-FP8 on eight H100s with TP and EP 8, f-string numbers, `cmd += ([...] if MODEL_REVISION else [])`;
# kept: the image and the command; dropped: the prose, the warm-up and the client.
import subprocess
import time

import modal

MINUTES = 60

sglang_image = (
    modal.Image.from_registry("lmsysorg/sglang:dev-cu13-dev-step-3.7-flash")
    .entrypoint([])
    .run_commands("rm -rf /root/.cache/huggingface")
)

N_GPUS = 8
GPU = f"H100:{N_GPUS}"

MODEL_NAME = "stepfun-ai/Step-3.7-Flash-FP8"
MODEL_REVISION = "d14f10bf45f025eae0f096ce7c91e9c08b0416da"

HF_CACHE_VOL = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
HF_CACHE_PATH = "/root/.cache/huggingface"
hf_secret = modal.Secret.from_name("huggingface-secret")

sglang_image = sglang_image.env({"HF_HUB_CACHE": HF_CACHE_PATH, "HF_XET_HIGH_PERFORMANCE": "1"})

app = modal.App(name="example-stepfun-inference")
PORT = 8000
TARGET_INPUTS = 16


@app.server(
    image=sglang_image,
    gpu=GPU,
    volumes={HF_CACHE_PATH: HF_CACHE_VOL},
    secrets=[hf_secret],
    scaledown_window=15 * MINUTES,
    startup_timeout=120 * MINUTES,
    port=PORT,
    target_concurrency=TARGET_INPUTS,
)
class SGLang:
    @modal.enter()
    def startup(self):
        cmd = [
            "python",
            "-m",
            "sglang.launch_server",
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
            "--ep",
            f"{N_GPUS}",
            "--cuda-graph-max-bs",
            f"{TARGET_INPUTS * 2}",
            "--max-running-requests",
            f"{TARGET_INPUTS * 2}",
            "--enable-metrics",
            "--trust-remote-code",
        ]

        cmd += (
            [
                "--revision",
                MODEL_REVISION,
            ]
            if MODEL_REVISION
            else []
        )

        self.process = subprocess.Popen(cmd)
        time.sleep(1)

    @modal.exit()
    def stop(self):
        self.process.terminate()
