# source: https://github.com/sgl-project/sglang/issues/9872 (2025-09-01) "[Bug] Qwen3-30B-A3B-GPTQ-Int4 run failed when gptq_marlin_moe_repack creates tensor OOM！"
# GPU: not named (one device). Release: SGLang of September 2025, not named. The report: OOM in gptq_marlin_moe_repack while loading.
# Model config: models/qwen3-30b-a3b-gptq-int4 (Qwen3-30B-A3B with Qwen's GPTQ quantization_config: 4 bits, group 128).
CUDA_VISIBLE_DEVICES=4 python3 -m sglang.launch_server --model-path /work/models/Qwen/Qwen3-30B-A3B-GPTQ-Int4 --served-model-name Qwen3-30B-A3B-GPTQ-Int4 --quantization gptq_marlin --tp 1 --port 31000 --host 0.0.0.0 --log-level info --enable-metrics --enable-p2p-check --mem-fraction-static 0.9
