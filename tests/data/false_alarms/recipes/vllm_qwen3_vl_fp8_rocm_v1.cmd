# Reconstructed (not copied) after https://github.com/vllm-project/recipes/blob/8959cf64189c71d36e11c6a30335f923f261b1f7/Qwen/Qwen3-VL.md (FP8 (ROCm)), seen 2026-12-02: the environment assignments and the serve flags with their values, re-typed as one command line.
# release: vllm 0.14.1 (the command's lines were last changed on 2026-02-06, git blame at 8959cf6; the newest release the recipes repository names by then is 0.14.1)
# at that release (a note, fa35): PR001 info: VLLM_USE_V1 is not read by vllm 0.14.1; 1 is its default in vllm 0.11.0, the last release that reads it
MIOPEN_USER_DB_PATH="$(pwd)/miopen" MIOPEN_FIND_MODE=FAST VLLM_USE_V1=1 VLLM_ROCM_USE_AITER=1 SAFETENSORS_FAST_GPU=1 vllm serve Qwen/Qwen3-VL-235B-A22B-Instruct-FP8 --tensor-parallel  4 --mm-encoder-tp-mode "data"
