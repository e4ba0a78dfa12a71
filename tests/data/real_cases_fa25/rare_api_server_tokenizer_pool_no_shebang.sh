# Reconstructed (not copied) after https://github.com/infinityreader/RARE/blob/e65c9419af433c69b9a2f76f73777228bf18ee8e/scripts/deploy_llama31_70b.sh, seen 2026-12-04: a script with no shebang, CUDA_DEVICE_ORDER and two GPUs exported, spawn workers, the OpenAI API server for Llama 3.1 70B with `--tokenizer-pool-size 128 --swap-space 8 --block-size 32` (kept: the whole launch)
export CUDA_DEVICE_ORDER=PCI_BUS_ID
export CUDA_VISIBLE_DEVICES=2,3
export VLLM_WORKER_MULTIPROC_METHOD=spawn
python3 -m vllm.entrypoints.openai.api_server \
--model /home/htran/llama/Meta-Llama-3.1-70B-Instruct \
--gpu-memory-utilization 0.9 --tensor-parallel-size 2 \
--served-model-name llama31_7b_with_openai_api \
--max-model-len 32000 \
--tokenizer-pool-size 128 --swap-space 8 --block-size 32 \
--port 5999
