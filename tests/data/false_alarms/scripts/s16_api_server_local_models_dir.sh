# Reconstructed (not copied) after https://github.com/WohimLee/vLLM-Tutorial/blob/ed98be1d1289aa4e6f9af78e609841accab12ae0/6.openai_server/src/launch_vllm.sh, seen 2026-12-03: the api_server module with a repo-relative model folder (models/Qwen3-8B), its length, memory, sequences, tp 1 and port.
python -m vllm.entrypoints.openai.api_server \
  --model models/Qwen3-8B \
  --max-model-len 8192 \
  --gpu-memory-utilization 0.85 \
  --max-num-seqs 64 \
  --tensor-parallel-size 1 \
  --port 8000
