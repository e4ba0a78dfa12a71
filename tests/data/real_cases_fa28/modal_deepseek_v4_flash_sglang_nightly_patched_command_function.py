# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/b151b2a4dcccd7489503f79b35d87b3fcaa64672/06_gpu_and_ml/llm-serving/deepseek_v4_flash.py
# Modal's DeepSeek-V4-Flash example (2026-07): a nightly SGLang image with an open PR's diff applied in the
# image build, the server words returned by a function (`cmd = _server_command()`), the cookbook's B300 flags
# (DSPARK speculative decoding, flashinfer_mxfp4 MoE runner, --swa-full-tokens-ratio, the deepseek-v4
# parsers), environment variables set on the image; kept: the image, the environment, the command; dropped:
# the prose, the weight download, the readiness helpers and the client.
import shlex
import subprocess

import modal

MINUTES = 60
GB = 1024

PR32183_DIFF_URL = (
    "https://github.com/sgl-project/sglang/compare/"
    "5387e23ecd7dde4c383ae857983686e6a73bddf3...22ef431215b1d8529eaebd8e8c6de9510390afaf.diff"
)

sglang_image = (
    modal.Image.from_registry("lmsysorg/sglang:nightly-dev-cu13-20260729-16a52bff")
    .entrypoint([])
    .run_commands(
        f"curl -fsSL {PR32183_DIFF_URL} -o /tmp/pr32183.diff",
        "cd /sgl-workspace/sglang && git apply --exclude=test/* /tmp/pr32183.diff",
        "rm -rf /root/.cache/huggingface",
    )
)

MODEL_NAME = "deepseek-ai/DeepSeek-V4-Flash-0731"
MODEL_REVISION = "9e165c30e2704aec5d9d593cce3eebd58bbef1cb"

HF_CACHE_DIR = "/root/.cache/huggingface"
hf_cache_vol = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
sglang_image = sglang_image.env({"HF_HUB_CACHE": HF_CACHE_DIR, "HF_XET_HIGH_PERFORMANCE": "1"})

DG_CACHE_DIR = "/cache/deep_gemm"
sglang_image = sglang_image.env(
    {
        "SGLANG_DG_CACHE_DIR": DG_CACHE_DIR,
        "SGLANG_JIT_DEEPGEMM_FAST_WARMUP": "1",
        "TILELANG_CACHE_DIR": f"{DG_CACHE_DIR}/tilelang",
    }
)

GPU_TYPE, GPU_COUNT = "B300", 1
MIN_CONTAINERS = 0
TARGET_INPUTS = 24
STARTUP_TIMEOUT = 60 * MINUTES

sglang_image = sglang_image.env(
    {
        "NCCL_CUMEM_ENABLE": "1",
        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
        "SGLANG_DEFAULT_THINKING": "false",
        "SGLANG_TIMEOUT_KEEP_ALIVE": f"{5 * MINUTES}",
        "TORCHINDUCTOR_COMPILE_THREADS": "1",
    }
)

DEFAULT_PORT = 8000


def _server_command() -> list[str]:
    cmd = [
        "sglang",
        "serve",
        "--model-path",
        MODEL_NAME,
        "--served-model-name",
        MODEL_NAME,
        "--revision",
        MODEL_REVISION,
        "--host",
        "0.0.0.0",
        "--port",
        str(DEFAULT_PORT),
        "--tp",
        str(GPU_COUNT),
        "--chunked-prefill-size",
        "4096",
        "--context-length",
        "268000",
        "--cuda-graph-max-bs-decode",
        "64",
        "--decode-log-interval",
        "200",
        "--default-chat-template-kwargs",
        '{"thinking":false}',
        "--disable-flashinfer-autotune",
        "--dist-timeout",
        f"{60 * MINUTES}",
        "--max-running-requests",
        "64",
        "--mem-fraction-static",
        "0.90",
        "--moe-a2a-backend",
        "none",
        "--moe-runner-backend",
        "flashinfer_mxfp4",
        "--reasoning-parser",
        "deepseek-v4",
        "--speculative-algorithm",
        "DSPARK",
        "--swa-full-tokens-ratio",
        "0.1",
        "--tool-call-parser",
        "deepseekv4",
        "--trust-remote-code",
        "--skip-server-warmup",
    ]
    return cmd


app = modal.App(name="example-deepseek-v4-flash")


@app.server(
    image=sglang_image,
    gpu=f"{GPU_TYPE}:{GPU_COUNT}",
    volumes={HF_CACHE_DIR: hf_cache_vol},
    port=DEFAULT_PORT,
    startup_timeout=STARTUP_TIMEOUT,
    min_containers=MIN_CONTAINERS,
    target_concurrency=TARGET_INPUTS,
)
class Server:
    @modal.enter()
    def startup(self):
        cmd = _server_command()
        print(shlex.join(cmd))
        self.proc = subprocess.Popen(cmd, start_new_session=True)

    @modal.exit()
    def stop(self):
        self.proc.terminate()
        self.proc.wait()
