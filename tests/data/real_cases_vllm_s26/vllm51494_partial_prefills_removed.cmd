# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/51494: the report's serve command with the two flags its follow-up added; 0.26.1rc1.dev457 answers "unrecognized arguments"
vllm serve nvidia/MiniMax-M3-NVFP4 --tensor-parallel-size 8 --max-num-partial-prefills 2 --max-long-partial-prefills 2
