# Reconstructed (not copied) after https://github.com/UofT-CSC490-W2026/OpenNeuro/blob/807509ce417ae48df6ef71b51ca194473b488af3/infra/modal-infra/src/vlm.py, seen 2026-12-04: a course project's Modal app serving allenai/Molmo2-4B with `vllm==0.15.0` pinned in the image, `--trust-remote-code`, `--enforce-eager` (FAST_BOOT), `--max-num-batched-tokens 32768`, then `subprocess.Popen(" ".join(cmd), shell=True)` (kept: the structure and the values)
import modal

vllm_image = (
    modal.Image.from_registry("nvidia/cuda:12.8.0-devel-ubuntu22.04", add_python="3.12")
    .entrypoint([])
    .uv_pip_install("vllm==0.15.0", "huggingface-hub==0.36.0")
    .env({"HF_XET_HIGH_PERFORMANCE": "1"})
)

MODEL_NAME = "allenai/Molmo2-4B"

hf_cache_vol = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
vllm_cache_vol = modal.Volume.from_name("vllm-cache", create_if_missing=True)

FAST_BOOT = True

app = modal.App("openneuro-vlm-inference")

N_GPU = 1
MINUTES = 60
VLLM_PORT = 8000


@app.function(
    image=vllm_image,
    gpu=f"H100:{N_GPU}",
    scaledown_window=15 * MINUTES,
    timeout=10 * MINUTES,
    volumes={"/root/.cache/huggingface": hf_cache_vol, "/root/.cache/vllm": vllm_cache_vol},
)
@modal.concurrent(max_inputs=32)
@modal.web_server(port=VLLM_PORT, startup_timeout=10 * MINUTES)
def serve():
    import subprocess

    cmd = [
        "vllm",
        "serve",
        "--uvicorn-log-level=info",
        MODEL_NAME,
        "--served-model-name",
        MODEL_NAME,
        "vlm",
        "--host",
        "0.0.0.0",
        "--port",
        str(VLLM_PORT),
        "--trust-remote-code",
    ]

    cmd += ["--enforce-eager" if FAST_BOOT else "--no-enforce-eager"]
    cmd += ["--tensor-parallel-size", str(N_GPU)]
    cmd += ["--max-num-batched-tokens", "32768"]

    print(*cmd)

    subprocess.Popen(" ".join(cmd), shell=True)
