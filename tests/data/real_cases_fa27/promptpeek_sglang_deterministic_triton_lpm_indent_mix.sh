# Reconstructed (not copied) after https://github.com/shahidmuneer-skku/promptpeek-attack/blob/12b4306de4688a9d6a1603ef9b6b55f47ea8650a/shahid/run_sglang.sh, seen 2026-12-04: a research script: SGLANG_LOG_LEVEL and SGL_ENABLE_JIT_DEEPGEMM=0 exported, `python -m sglang.launch_server` of Qwen3-0.6B-FP8 with one flag line indented deeper than the rest, the triton backend, `--schedule-policy lpm`, `--enable-deterministic-inference`, `--cuda-graph-max-bs 16` beside `--disable-cuda-graph`, a line of two blanks and a commented-out flag after the command (kept: the whole file)
export SGLANG_LOG_LEVEL=DEBUG
export SGL_ENABLE_JIT_DEEPGEMM=0

python -m sglang.launch_server \
  --model Qwen/Qwen3-0.6B-FP8 \
    --attention-backend triton \
  --mem-fraction-static 0.85 \
  --schedule-policy lpm \
  --enable-deterministic-inference \
  --cuda-graph-max-bs 16 \
  --disable-cuda-graph
  
#   --attention-backend flashinfer \
