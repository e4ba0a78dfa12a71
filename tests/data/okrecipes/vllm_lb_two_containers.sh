# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/1bb4011bae1262b2a34a9373d30495db692806ba/docs/deployment/loadbalancer.md (Launch vLLM Containers), seen 2026-12-03: the network, the cache dir and the two docker run lines on the locally built `vllm` image.
docker network create vllm_lb
mkdir -p ~/.cache/huggingface/hub/
hf_cache_dir=~/.cache/huggingface/
docker run -itd --ipc host --network vllm_lb --gpus device=0 --shm-size=10.24gb -v $hf_cache_dir:/root/.cache/huggingface/ -p 8081:8000 --name vllm0 vllm --model meta-llama/Llama-2-7b-chat-hf
docker run -itd --ipc host --network vllm_lb --gpus device=1 --shm-size=10.24gb -v $hf_cache_dir:/root/.cache/huggingface/ -p 8082:8000 --name vllm1 vllm --model meta-llama/Llama-2-7b-chat-hf
