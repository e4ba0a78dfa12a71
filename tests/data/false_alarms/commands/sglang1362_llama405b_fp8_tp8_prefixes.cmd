# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/1362 (a maintainer's comment: "It works well for me on 8xH100 SXM"), seen 2026-12-02: the launch line, with its argparse prefixes --disable-radix and --mem-frac.
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-405B-FP8 --tp 8 --disable-radix --mem-frac 0.87
