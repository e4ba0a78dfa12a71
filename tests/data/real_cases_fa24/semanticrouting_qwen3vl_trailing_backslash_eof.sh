# Reconstructed (not copied) after https://github.com/zooblastlbz/SemanticRouting/blob/27a1b5826fb2f3ae0b00670dd38ea6f51f7c996d/scripts/deploy.sh, seen 2026-12-04: no shebang, a blank first line, Qwen3-VL-235B with tp 8, `--limit-mm-per-prompt.video 0`, `--async-scheduling`, `--enforce-eager`, `--allowed-local-media-path`, the last line ending in a backslash.

vllm serve /path/to/Qwen3-VL-235B-A22B-Instruct/ \
  --tensor-parallel-size 8 \
  --limit-mm-per-prompt.video 0 \
  --served-model-name Qwen3-VL-235B-A22B-Instruct \
  --async-scheduling \
  --enforce-eager \
  --allowed-local-media-path /path/to/local/media \
  --max-model-len 20480 \
  --gpu-memory-utilization 0.80 \
