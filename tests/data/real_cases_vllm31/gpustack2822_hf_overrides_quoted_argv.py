# Reconstructed (not copied) after https://github.com/gpustack/gpustack/issues/2822 (2025-09-04: the Apertus model needs --hf-overrides '{"architectures": ["ApertusForCausalLM"]}', but written as a backend parameter --hf-overrides='{"architectures" :["ApertusForCausalLM"]}' the value reaches vLLM with its shell quotes, since GPUStack starts vLLM without a shell); GPUStack's start written as the argument list it passes, the model path a stand-in
import subprocess

subprocess.Popen(
    [
        "vllm",
        "serve",
        "swiss-ai/Apertus-8B-Instruct-2509",
        "--port",
        "40041",
        "--hf-overrides='{\"architectures\" :[\"ApertusForCausalLM\"]}'",
    ]
)
