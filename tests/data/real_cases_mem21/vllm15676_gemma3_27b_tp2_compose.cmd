# source: https://github.com/vllm-project/vllm/issues/15676 (2025-04-07 comment by cpwan) "[Bug]: vllm 0.8.2 serve Gemma3 error"
# GPU: not named in the part returned (two cards). Release: 0.8.2/0.8.3 of April 2025 (V1). The compose service's vLLM settings as
# posted (YAML keys turned into flags); "It gives OOM" after "GPU KV cache size: 54,048 tokens", in the first requests' run.
# Model config: models/gemma-3-27b-it.
vllm serve google/gemma-3-27b-it --tensor-parallel-size 2 --max-model-len 16384 --max-num-seqs 4 --limit-mm-per-prompt image=3
