# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/18888 (2025-05-29, description, vllm 0.8.5, 8x H800), seen 2026-12-02: the launch; the error (a screenshot, titled in the text) "FlashMLA V1 with FP8 KV cache not yet supported!": on 0.8.5's V1 engine the MLA backend of DeepSeek-R1 had no FP8 KV cache.
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
NCCL_SOCKET_IFNAME=bond0 \
GLOO_SOCKET_IFNAME=bond0 \
VLLM_USE_V1=1 \
VLLM_USE_MODELSCOPE=true \
vllm serve /data/models/huggingface.co/deepseek-ai/DeepSeek-R1/DeepSeek-R1-Hzz1 \
--served-model-name deepseek-r1 \
--gpu-memory-utilization 0.8 \
--tensor-parallel-size 8  \
--trust-remote-code \
--enable-chunked-prefill \
--port 8000 \
--kv-cache-dtype fp8 \
--enable-expert-parallel
