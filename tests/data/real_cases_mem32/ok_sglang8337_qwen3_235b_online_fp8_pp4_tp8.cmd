# source: https://github.com/sgl-project/sglang/issues/8337 (2025-07-25) "[Bug] Unexpected memory usage when using `--quantization fp8`"
# Correct launch: "We deploy Qwen 3 Moe 235B in PP4 TP8 on 4 * H200 with online quantization FP8"; it starts: "Load weight end.
# type=Qwen3MoeForCausalLM, dtype=torch.bfloat16, avail mem=117.93 GB, mem usage=19.99 GB" (13.73 GB without --quantization fp8).
# Stand-in: the command is not posted; node 0 of the four 8x H200 nodes as SGLang's multi-node flags write it.
# Model config: models/qwen3-235b-a22b (tests/data/models/qwen3-235b-a22b-fp8 without its quantization_config: the bf16 checkpoint).
python3 -m sglang.launch_server --model-path Qwen/Qwen3-235B-A22B --tp 8 --pp-size 4 --nnodes 4 --node-rank 0 --dist-init-addr 10.0.0.1:5000 --quantization fp8 --trust-remote-code
