# Reconstructed (not copied) after https://github.com/LG-AI-EXAONE/EXAONE-4.0/issues/6 (2026-01-20: the README serves EXAONE 4.0 with --reasoning-parser deepseek_r1, which cannot honour enable_thinking=false requests; the parser that fits is deepseek_v3, from vLLM 0.14.0 on); the README's command with the parser it names
vllm serve LGAI-EXAONE/EXAONE-4.0-32B --reasoning-parser deepseek_r1
