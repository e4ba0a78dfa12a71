# Reconstructed (not copied) after https://qwen.readthedocs.io/en/stable/deployment/sglang.html (API Service), seen 2026-12-01: the install line, the ModelScope variable and the tensor-parallel launch.
pip install "sglang[all]>=0.4.6.post1"
export SGLANG_USE_MODELSCOPE=true
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tensor-parallel-size 4
