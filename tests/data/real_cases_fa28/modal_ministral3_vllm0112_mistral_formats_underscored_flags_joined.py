# Reconstructed (not copied) after https://github.com/modal-labs/modal-examples/blob/0e7ca77010cf8b41b4280b1a507cb34396911e69/06_gpu_and_ml/llm-serving/ministral3_inference.py
# Modal's Ministral 3 example (2025-12): `vllm==0.11.2` pinned, the model after `--uvicorn-log-level=info` with
# two served names, underscored flags (`--gpu_memory_utilization`, `--tokenizer_mode`, `--config_format`,
# `--load_format`) of the mistral formats, `str(0.99)`, FAST_BOOT = True, the list joined for a shell; kept:
# the image and the command; dropped: the prose and the client.
import modal

app = modal.App("example-ministral3-inference")

vllm_image = (
    modal.Image.from_registry("nvidia/cuda:12.8.0-devel-ubuntu22.04", add_python="3.12")
    .entrypoint([])
    .uv_pip_install("vllm==0.11.2", "huggingface-hub==0.36.0", "flashinfer-python==0.5.2")
)
vllm_image = vllm_image.env({"HF_XET_HIGH_PERFORMANCE": "1"})

MODEL_NAME = "mistralai/Ministral-3-8B-Instruct-2512"
N_GPU = 1

hf_cache_vol = modal.Volume.from_name("huggingface-cache", create_if_missing=True)
vllm_cache_vol = modal.Volume.from_name("vllm-cache", create_if_missing=True)

FAST_BOOT = True

MINUTES = 60
VLLM_PORT = 8000


@app.function(
    image=vllm_image,
    gpu=f"H100:{N_GPU}",
    scaledown_window=15 * MINUTES,
    timeout=10 * MINUTES,
    volumes={"/root/.cache/huggingface": hf_cache_vol, "/root/.cache/vllm": vllm_cache_vol},
    secrets=[modal.Secret.from_name("huggingface-secret")],
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
        "--gpu_memory_utilization",
        str(0.99),
    ]

    cmd += ["--enforce-eager" if FAST_BOOT else "--no-enforce-eager"]
    cmd += ["--tensor-parallel-size", str(N_GPU)]

    # the mistral formats
    cmd += [
        "--tokenizer_mode",
        "mistral",
        "--config_format",
        "mistral",
        "--load_format",
        "mistral",
        "--tool-call-parser",
        "mistral",
        "--enable-auto-tool-choice",
    ]

    print(*cmd)
    subprocess.Popen(" ".join(cmd), shell=True)
