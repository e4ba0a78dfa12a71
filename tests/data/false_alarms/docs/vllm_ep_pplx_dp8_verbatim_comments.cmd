# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/017025691b3006ed548f763fd394a846affa6064/docs/serving/expert_parallel_deployment.md (Single Node Deployment), seen 2026-12-02: the block as the page writes it, its five lines with the comments after the backslashes (the one case of the sweep kept verbatim).
# release: vllm 0.15.1 (the page names no release and its commit is not dated here: the newest bundled release on which every command taken from the page is accepted (flags, choices, variables, KV connectors and config keys by the schemas generated from the wheels), the page's era by its own flags: vllm 0.10.2-0.15.1)
# at that release (true finding): SH003 error: line 3 ends `\      # comment`: the backslash escapes the first blank, not the newline (bash passes ' ' as an argument, checked with printf), so the command ends there
# at that release (true finding): SH003 error: line 4 likewise: `--data-parallel-size 8 ' '` runs as a command of its own
# at that release (true finding): PA001 error: once the flags reach the server, the ' ' word is refused by vLLM's parser ("unrecognized arguments")
# at that release (true finding): PA001 error: the server as launched gets ' ' after `--tensor-parallel-size 1` and vLLM's parser refuses it (folded under SH003 as its consequence)
# with no options (true finding): SH003 error: the same (the shell's reading holds whichever release runs)
# with no options (true finding): SH003 error: the same, line 4
# with no options (true finding): PA001 error: the same (no vLLM release takes a positional ' ' after the model)
# with no options (true finding): PA001 error: the same, the ' ' the server as launched gets
VLLM_ALL2ALL_BACKEND=pplx VLLM_USE_DEEP_GEMM=1 \
    vllm serve deepseek-ai/DeepSeek-V3-0324 \
    --tensor-parallel-size 1 \      # Tensor parallelism across 1 GPU
    --data-parallel-size 8 \         # Data parallelism across 8 processes
    --enable-expert-parallel         # Enable expert parallelism
