# source: https://github.com/vllm-project/vllm/issues/16749 (2025-04-17) "[Bug]: InternVL3-78B OOM on 4 A100 40G in 0.8.4"
# GPU: 4x NVIDIA A100-PCIE-40GB ("GPU memory: 39.38GB"). Release: vLLM 0.8.4. The report: OOM at start-up, also with --enforce-eager;
# transformers on the same 4 cards works. Model config: models/internvl3-78b (InternVLChatModel: Qwen2.5-72B language model + InternViT-6B).
CUDA_VISIBLE_DEVICES=4,5,6,7 vllm serve /data/ps/pretrained_model/OpenGVLab/InternVL3-78B/ --dtype bfloat16 --port 8009 --trust-remote-code --served-model-name qwen2vl --tensor-parallel-size 4 --gpu-memory-utilization 0.95 --max-num-seqs 2 --max-model-len 4096 --limit-mm-per-prompt image=1,video=0 --mm_processor_kwargs '{"max_pixels":1024}' --enforce-eager
