# Reconstructed (not copied) after https://github.com/shreyansh26/MLSys-Experiments/blob/c0b0336d9c9f764a53573adb0cf84cc0a3f1d833/vllm_features/bench/launch_minimax_m21.sh, seen 2026-12-04: no shebang, `SAFETENSORS_FAST_GPU=1 vllm serve \` with the model on the next line, `--enable_expert_parallel`, tp 8, the minimax_m2 tool parser and the minimax_m2_append_think reasoning parser, a trailing blank.
SAFETENSORS_FAST_GPU=1 vllm serve \
    MiniMaxAI/MiniMax-M2.1 --trust-remote-code \
    --enable_expert_parallel --tensor-parallel-size 8 \
    --enable-auto-tool-choice --tool-call-parser minimax_m2 \
    --reasoning-parser minimax_m2_append_think 
