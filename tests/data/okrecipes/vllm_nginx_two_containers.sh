# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/0794945f839b0e07a15212ae4c23e711b63d6d23/docs/deployment/nginx.md (Launch vLLM Containers), seen 2026-12-03: the network, the cache dir and the two docker run lines on the locally built `vllm` image.
docker network create vllm_nginx
mkdir -p ~/.cache/huggingface/hub/
hf_cache_dir=~/.cache/huggingface/
docker run -itd --ipc host --network vllm_nginx --gpus device=0 --shm-size=10.24gb -v $hf_cache_dir:/root/.cache/huggingface/ -p 8081:8000 --name vllm0 vllm --model meta-llama/Llama-2-7b-chat-hf
docker run -itd --ipc host --network vllm_nginx --gpus device=1 --shm-size=10.24gb -v $hf_cache_dir:/root/.cache/huggingface/ -p 8082:8000 --name vllm1 vllm --model meta-llama/Llama-2-7b-chat-hf
