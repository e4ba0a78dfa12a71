# https://github.com/vllm-project/vllm/pull/13505 (correct: "This now boots and logs the backend and option(s)", on v0.7.2.dev56)
vllm serve Qwen/Qwen2.5-3B-Instruct --guided-decoding-backend xgrammar:no-fallback
