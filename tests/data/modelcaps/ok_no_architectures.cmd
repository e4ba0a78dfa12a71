# a config.json without `architectures` (argtrace cannot tell the class): nothing may be said about it
vllm serve /models/llama --enable-lora --pipeline-parallel-size 2
