# https://github.com/vllm-project/vllm/issues/7993 (vLLM 0.5.5: a GGUF file whose name lacks .gguf is not taken as GGUF, whatever --quantization/--load-format say)
vllm serve ~/.local/share/ramalama/models/ollama/granite-code:latest --quantization gguf --load-format gguf
