# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/b0a7ed43b5726a0cb720c3e22b520914b081f505/06_gpu_and_ml/llm-serving/sglang_embeddings.py
# Modal's SGLang embeddings example (2026): the lmsysorg/sglang:v0.5.6.post2 runtime image, Qwen3-Embedding-8B
# with --is-embedding on an L40S, FA3 attention, --cuda-graph-max-bs of `MAX_INPUTS // 2`, the memory saver
# and CPU weight backup for GPU snapshots; kept: the image, the command and the values it reads; dropped:
# the prose, the warm-up, release and resume calls, the clients and the benchmark.
import subprocess
import time

import modal
import modal.experimental

MINUTES = 60

sglang_image = (
    modal.Image.from_registry("lmsysorg/sglang:v0.5.6.post2-cu129-amd64-runtime")
    .entrypoint([])
    .uv_pip_install("huggingface-hub==0.36.0")
    .env({"TORCHINDUCTOR_COMPILE_THREADS": "1"})
)

MODEL_NAME = "Qwen/Qwen3-Embedding-8B"
MODEL_REVISION = "main"

sglang_image = sglang_image.env({"HF_HUB_CACHE": "/root/.cache/huggingface", "HF_XET_HIGH_PERFORMANCE": "1"})

HF_CACHE_VOL = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
HF_CACHE_PATH = "/root/.cache/huggingface"

GPU = "L40S"
REGION = "us-east"
TARGET_INPUTS = 100
MAX_INPUTS = 500
MIN_CONTAINERS = 0

app = modal.App(name="example-sglang-embeddings")
PORT = 8000


@app.cls(
    image=sglang_image,
    gpu=GPU,
    volumes={HF_CACHE_PATH: HF_CACHE_VOL},
    region=REGION,
    min_containers=MIN_CONTAINERS,
    scaledown_window=10 * MINUTES,
    enable_memory_snapshot=True,
    experimental_options={"enable_gpu_snapshot": True},
)
@modal.experimental.http_server(port=PORT, proxy_regions=[REGION], exit_grace_period=15)
@modal.concurrent(target_inputs=TARGET_INPUTS)
class SGLangEmbeddings:
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
            "--host",
            "0.0.0.0",
            "--port",
            str(PORT),
            "--is-embedding",
            "--max-running-requests",
            str(MAX_INPUTS),
            "--cuda-graph-max-bs",
            str(MAX_INPUTS // 2),
            "--mem-fraction-static",
            "0.9",
            "--enable-metrics",
            "--attention-backend",
            "fa3",
            "--enable-memory-saver",
            "--enable-weights-cpu-backup",
        ]

        self.process = subprocess.Popen(cmd)
        time.sleep(1)

    @modal.exit()
    def stop(self):
        self.process.terminate()
