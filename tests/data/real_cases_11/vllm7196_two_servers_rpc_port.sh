# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/7196 (2024-08-06, vLLM 0.5.4), seen 2026-12-02: the reporter's script as posted; the second server fails with "ZMQError: Address already in use (addr='tcp://127.0.0.1:5570')", the RPC port 0.5.4's api_server bound for every server (VLLM_RPC_PORT; a bug of the release, fixed in a later one).
export CUDA_VISIBLE_DEVICES=1
nohup python -m vllm.entrypoints.openai.api_server \
--model /PROJECT/model/1/ \
--trust_remote_code \
--dtype half \
--host 127.0.0.1 \
--port 8000 \
--tensor-parallel-size 1 > 1_vllm.log 2>&1 &

sleep 10
export CUDA_VISIBLE_DEVICES=3
nohup python -m vllm.entrypoints.openai.api_server \
--model /PROJECT/model/2/ \
--trust_remote_code \
--dtype half \
--host 127.0.0.1 \
--port 8003 \
--tensor-parallel-size 1 > 2_vllm.log 2>&1 &
