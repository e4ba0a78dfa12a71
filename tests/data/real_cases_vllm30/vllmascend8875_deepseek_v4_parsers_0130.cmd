# Reconstructed (not copied) after https://github.com/vllm-project/vllm-ascend/issues/8875 (2026-05-05: on the quay.io/ascend/vllm-ascend:v0.13.0rc3 image, vLLM 0.13.0, setting --reasoning-parser and --tool-call-parser to deepseek_v4 is refused, "no deepseek-v4 option"); the server is the A2 single-node DeepSeek-V4-Flash recipe the report follows (as vllm-ascend#8670 quotes it), with the two parsers the report adds
vllm serve /root/.cache/modelscope/hub/models/vllm-ascend/DeepSeek-V4-Flash-w8a8-mtp \
  --host 0.0.0.0 --port 8006 \
  --max_model_len 65536 --max-num-batched-tokens 8192 \
  --served-model-name ds --gpu-memory-utilization 0.9 --max-num-seqs 16 \
  --data-parallel-size 1 --tensor-parallel-size 8 --enable-expert-parallel \
  --quantization ascend --block-size 128 --async-scheduling \
  --enable-auto-tool-choice --tool-call-parser deepseek_v4 --reasoning-parser deepseek_v4
