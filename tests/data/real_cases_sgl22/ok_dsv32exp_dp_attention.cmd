# Reconstructed (not copied) after https://huggingface.co/deepseek-ai/DeepSeek-V3.2-Exp/commit/fd33dda13987c4ec2bd43d7d4318046a4f220ca9, seen 2026-12-04: a correct launch: the model card's SGLang command after the maintainers' fix (DP attention named, --page-size 64 dropped).
python -m sglang.launch_server --model deepseek-ai/DeepSeek-V3.2-Exp --tp 8 --dp 8 --enable-dp-attention
