# https://github.com/vllm-project/vllm/issues/28150 (main of 2025-11-05, between 0.11.0 and 0.11.1: "-O.mode only accepts integer levels"; -O.mode=0 works)
vllm serve -O.mode=NONE
