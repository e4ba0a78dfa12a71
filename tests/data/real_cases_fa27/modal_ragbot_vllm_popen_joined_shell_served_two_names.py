# Reconstructed (not copied) after https://github.com/modal-projects/open-source-av-ragbot/blob/368d037b0cc590a768d85ea1663b7c4226b3b564/server/services/modal_rag/vllm_server.py, seen 2026-12-04: a Modal app that serves Qwen3-4B-Instruct-2507 with vLLM on one H100: a `cmd` list with `--uvicorn-log-level=info` before the model, two served names, commented-out items, `cmd +=` of a conditional `--no-enforce-eager` and `--tensor-parallel-size str(N_GPU)`, then `subprocess.Popen(" ".join(cmd), shell=True)`; the image's `.env({...})` (kept: the structure and the values)
import modal

vllm_image = (
    modal.Image.from_registry("nvidia/cuda:12.8.0-devel-ubuntu22.04", add_python="3.12")
    .uv_pip_install("vllm", "huggingface_hub[hf_transfer]", "flashinfer-python", "accelerate")
    .env(
        {
            "HF_HUB_ENABLE_HF_TRANSFER": "1",
            "VLLM_USE_V1": "1",
            "TORCHINDUCTOR_FX_GRAPH_CACHE": "1",
            "CUDA_CACHE_PATH": "/models/.nv_cache",
            "TORCHINDUCTOR_CACHE_DIR": "/models/.inductor_cache",
            "TRITON_CACHE_DIR": "/models/.triton_cache",
            "VLLM_CACHE_ROOT": "/models/.vllm_cache",
        }
    )
)

MODEL_NAME = "Qwen/Qwen3-4B-Instruct-2507"

hf_cache_vol = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
vllm_cache_vol = modal.Volume.from_name("vllm-cache", create_if_missing=True)

FAST_BOOT = False

app = modal.App("vllm-service")

N_GPU = 1
MINUTES = 60  # seconds
VLLM_PORT = 8000


@app.function(
    image=vllm_image,
    gpu=f"H100:{N_GPU}",
    scaledown_window=15 * MINUTES,
    timeout=10 * MINUTES,
    volumes={"/root/.cache/huggingface": hf_cache_vol, "/root/.cache/vllm": vllm_cache_vol},
    min_containers=1,
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
        "llm",
        "--host",
        "0.0.0.0",
        "--port",
        str(VLLM_PORT),
        "--enable-chunked-prefill",
        # "--max-num-seqs",
        # "1",
        "--enable-prefix-caching",
    ]

    # enforce-eager disables both Torch compilation and CUDA graph capture
    cmd += ["--enforce-eager" if FAST_BOOT else "--no-enforce-eager"]

    # assume multiple GPUs are for splitting up large matrix multiplications
    cmd += ["--tensor-parallel-size", str(N_GPU)]

    print(cmd)

    subprocess.Popen(" ".join(cmd), shell=True)
