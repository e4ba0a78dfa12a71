# Reconstructed (not copied) after https://github.com/openshift-psap/auto-tuning-vllm/issues/76 (2025-10-01: the tuner's `options: ['-O1', '-O3']` "results in `--compilation-config O1 <or> O3` getting passed to vLLM. vLLM actually expects `-O3` or `-O1` only")
vllm serve Qwen/Qwen3-8B --compilation-config O1
