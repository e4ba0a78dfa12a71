# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/034a9f7552cfaeea54b7e3fb0b19fe062df92c25/06_gpu_and_ml/llm-serving/very_large_models.py
# Modal's "very large models" example (2026): lmsysorg/sglang:v0.5.7, GLM-4.7-FP8 on four H200s, the settings
# in a YAML text written to a local file and added to the image as /root/config.yaml (`--config`), the command
# list joined for a shell with an `HF_HUB_OFFLINE=...` word first whose value depends on an environment
# variable; kept: the image, the config text, the command; dropped: the prose, the probes and the client.
import os
import subprocess
import time
from pathlib import Path

import modal

here = Path(__file__).parent

image = modal.Image.from_registry("lmsysorg/sglang:v0.5.7").entrypoint([])

hf_cache_vol = modal.Volume.from_name("huggingface-cache", create_if_missing=True)

USE_DUMMY_WEIGHTS = os.environ.get("APP_USE_DUMMY_WEIGHTS", "0").lower() in ("1", "true")

image = image.env({"HF_XET_HIGH_PERFORMANCE": "1", "APP_USE_DUMMY_WEIGHTS": str(int(USE_DUMMY_WEIGHTS))})

REPO_ID = "zai-org/GLM-4.7-FP8"


def is_sglang_env_var(key):
    return key.startswith("SGL_") or key.startswith("SGLANG_")


image = image.env({key: value for key, value in os.environ.items() if is_sglang_env_var(key)})

default_config = """\
 # General Config
 host: 0.0.0.0
 log-level: debug  # very noisy

 # Model Config
 tool-call-parser: glm47
 reasoning-parser: glm45
 trust-remote-code: true

 # Memory
 mem-fraction-static: 0.85
 chunked-prefill-size: 32768
 kv-cache-dtype: fp8_e4m3

 # Observability
 enable-metrics: true
 collect-tokens-histogram: true

 # Batching
 max-running-requests: 32
 cuda-graph-max-bs: 32

 # SpecDec (GLM 4.7's own multi-token prediction)
 speculative-algorithm: EAGLE
"""

local_config_path = os.environ.get("APP_LOCAL_CONFIG_PATH")

if modal.is_local():
    if local_config_path is None:
        local_config_path = here / "config_very_large_models.yaml"
        if not local_config_path.exists():
            local_config_path.write_text(default_config)
    image = image.add_local_file(local_config_path, "/root/config.yaml")


def _start_server() -> subprocess.Popen:
    """Start the SGLang server in a subprocess"""
    cmd = [
        f"HF_HUB_OFFLINE={0 if USE_DUMMY_WEIGHTS else 1}",
        "python",
        "-m",
        "sglang.launch_server",
        "--host",
        "0.0.0.0",
        "--port",
        str(SGLANG_PORT),
        "--model-path",
        REPO_ID,
        "--tp-size",
        str(GPU_COUNT),
        "--config",
        "/root/config.yaml",
    ]

    if USE_DUMMY_WEIGHTS:
        cmd.extend(["--load-format", "dummy"])

    print(*cmd)
    return subprocess.Popen(" ".join(cmd), shell=True, start_new_session=True)


app = modal.App("example-serve-very-large-models", image=image)

GPU_TYPE = "H200"
GPU_COUNT = 4
MIN_CONTAINERS = 0
TARGET_INPUTS = 10
SGLANG_PORT = 8000
MINUTES = 60


@app.server(
    image=image,
    gpu=f"{GPU_TYPE}:{GPU_COUNT}",
    scaledown_window=20 * MINUTES,
    startup_timeout=30 * MINUTES,
    volumes={"/root/.cache/huggingface": hf_cache_vol},
    min_containers=MIN_CONTAINERS,
    port=SGLANG_PORT,
    target_concurrency=TARGET_INPUTS,
)
class Server:
    @modal.enter()
    def start(self):
        self.proc = _start_server()
        time.sleep(1)

    @modal.exit()
    def stop(self):
        self.proc.terminate()
        self.proc.wait()
