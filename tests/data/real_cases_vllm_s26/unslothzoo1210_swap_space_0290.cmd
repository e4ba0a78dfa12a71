# Reconstructed (not copied) after https://github.com/unslothai/unsloth-zoo/issues/1210: the swap space load_vllm computes, given to vllm serve 0.29.0 as the flag (absent from EngineArgs since 0.18.0)
vllm serve unsloth/Llama-3.2-1B-Instruct --gpu-memory-utilization 0.7 --swap-space 6
