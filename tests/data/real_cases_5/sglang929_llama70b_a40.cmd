# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/929 (2024-08-05, sglang 0.2.7, 8x A40), seen 2026-12-02: the reporter's launch; an AssertionError (shown as a screenshot).
python3 -m sglang.launch_server --model-path ./models/Meta-Llama-3-70B-Instruct --host 0.0.0.0 --port 30000 --tp 8 --mem-fraction-static 0.7 --chunked-prefill-size 8192
