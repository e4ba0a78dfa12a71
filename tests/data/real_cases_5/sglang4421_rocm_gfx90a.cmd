# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/4421 (2025-03-18, image lmsysorg/sglang:v0.4.4.post1-rocm630 on gfx90a), seen 2026-12-02: the launch inside the container; the image lacks TensileLibrary_lazy_gfx90a.dat.
python3 -m sglang.launch_server --model-path /models/DeepSeek-R1-Distill-Qwen-32B/  --host 0.0.0.0 --port 30000 --trust-remote-code --tp 8
