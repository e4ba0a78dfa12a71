# Reconstructed (not copied) after https://github.com/coco-alen/sglang_assistance/blob/49e6c1681d5b1543bda37f173b3f271b5341cf37/test_script/pd_prefill.sh, seen 2026-12-04: no shebang, `export TORCHINDUCTOR_CACHE_DIR=~/.triton`, an InternVL3-1B prefill server (`--disaggregation-mode prefill`, the nixl transfer backend, the internvl-2-5 chat template), ending in a blank with no final newline.
export TORCHINDUCTOR_CACHE_DIR=~/.triton

CUDA_VISIBLE_DEVICES=6 python -m sglang.launch_server \
    --model-path OpenGVLab/InternVL3-1B \
    --chat-template internvl-2-5 \
    --mem-fraction-static 0.5 \
    --disaggregation-mode prefill \
    --port 30000 \
    --disaggregation-transfer-backend nixl 