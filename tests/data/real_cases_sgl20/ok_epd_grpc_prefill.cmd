# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/260d2e2e247c41818709ae09a24c08d60f88fe78/docs/advanced_features/epd_disaggregation.md (SGLang docs, 2026), seen 2026-12-03: a correct launch: the HTTP prefill server in front of a gRPC encoder, told by SGLANG_ENCODER_MM_RECEIVER_MODE to use the gRPC receiver.
SGLANG_ENCODER_MM_RECEIVER_MODE=grpc \
python -m sglang.launch_server \
  --model-path Qwen/Qwen3-VL-8B-Instruct \
  --disaggregation-mode prefill \
  --language-only \
  --encoder-urls grpc://127.0.0.1:30000 \
  --encoder-transfer-backend zmq_to_scheduler \
  --port 30002
