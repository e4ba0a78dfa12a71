# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/9243, seen 2026-12-02: the variable the warning advised and the same api_server launch (GPTQ, fp8_e5m2 KV cache, tp 2) that then fails; the log names vLLM 0.6.1.dev238.
export VLLM_ATTENTION_BACKEND=FLASHINFER
python3 -m vllm.entrypoints.openai.api_server --host 0.0.0.0 --port 7807 --model /mnt/home/Qwen2.5-14B-Instruct-GPTQ-Int4 --trust-remote-code --served-model-name Qwen --gpu-memory-utilization 0.9 --tensor-parallel-size 2 --enforce-eager --max-model-len 8192 --quantization gptq --kv-cache-dtype fp8_e5m2
