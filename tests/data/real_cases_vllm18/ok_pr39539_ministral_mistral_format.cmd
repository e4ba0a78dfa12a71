# https://github.com/vllm-project/vllm/pull/39539 (correct: the server command of a report on vLLM 0.19.1; the server ran, the failing part was the benchmark client's --tokenizer-mode hf)
vllm serve mistralai/Ministral-3-14B-Instruct-2512-BF16 --max-model-len 32768 --max-num-seqs 32 --tensor-parallel-size 4 --tokenizer_mode mistral --config_format mistral --enable-prefix-caching
