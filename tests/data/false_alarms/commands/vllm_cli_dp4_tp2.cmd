# Reconstructed (not copied) after https://www.mintlify.com/vllm-project/vllm/serving/cli-usage (Data parallel deployment, single node), seen 2026-12-01: the server flags and values, one command line.
vllm serve meta-llama/Llama-3.2-1B-Instruct --data-parallel-size 4 --tensor-parallel-size 2
