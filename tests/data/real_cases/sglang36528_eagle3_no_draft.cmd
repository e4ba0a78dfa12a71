# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/36528, seen 2026-12-02: the launch its text describes (the model and the one speculative flag it names; no release named).
python -m sglang.launch_server --model-path Qwen/Qwen2.5-0.5B-Instruct --speculative-algorithm EAGLE3
