# Reconstructed (not copied) after https://github.com/wwwtttjjj/OddGridBench_version2/blob/c0447b8ad95eeec247b517b687160d97339ec8bc/SOI_type/eval/test.sh, seen 2026-12-04: a benchmark's eval script: a blank first line, `export CUDA_VISIBLE_DEVICES=2,3,5,7` (four GPUs, not in a row), `conda activate easyr1` without conda's hook, `vllm serve` of a local Qwen3-VL-32B-Instruct at TP 4; no newline at the end (kept: the whole file)

export CUDA_VISIBLE_DEVICES=2,3,5,7
conda activate easyr1

vllm serve /data/wengtengjin/models/Qwen3-VL-32B-Instruct \
  --port 8081 \
  --gpu-memory-utilization 0.8 \
  --max-model-len 4096 \
  --tensor-parallel-size 4