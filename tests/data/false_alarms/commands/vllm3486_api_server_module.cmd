# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/3486 (the server starts; the 404 comes from the client's model name), seen 2026-12-02: the module launch with its flags.
python -m vllm.entrypoints.openai.api_server --model /root/autodl-tmp/models/Qwen1.5-14B-Chat-GPTQ-Int8 --max-model-len 2000 --trust-remote-code
