# https://github.com/QwenLM/Qwen2.5-Omni/issues/302 (the reporter's launch command; the V0 engine, release not named)
VLLM_USE_V1=0 vllm serve Qwen2.5-Omni-7B --port 8009 --host 127.0.0.1 --dtype bfloat16 -tp 2 --enable-lora --lora-modules fnc_call=./path
