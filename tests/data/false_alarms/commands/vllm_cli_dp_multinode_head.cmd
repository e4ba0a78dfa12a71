# Reconstructed (not copied) after https://www.mintlify.com/vllm-project/vllm/serving/cli-usage (multi-node data parallel, node 0), seen 2026-12-01: the server flags and values, one command line.
vllm serve meta-llama/Llama-3.2-1B-Instruct --data-parallel-size 4 --data-parallel-size-local 2 --data-parallel-address 10.99.48.128 --data-parallel-rpc-port 13345
