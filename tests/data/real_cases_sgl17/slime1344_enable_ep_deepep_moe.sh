# Reconstructed (not copied) after https://github.com/THUDM/slime/pull/1344 (2026-01-06), seen 2026-12-03: slime's docs and scripts still passed --enable-ep-moe and --enable-deepep-moe to SGLang, which had replaced them by --ep-size and --moe-a2a-backend deepep (sglang PR#8658, removed later); the fix updates the words. The script around them is not shown; model and sizes are stand-ins.
MODEL=/models/DeepSeek-V3
python3 -m sglang.launch_server \
  --model-path "$MODEL" \
  --tp 8 \
  --enable-ep-moe \
  --enable-deepep-moe \
  --trust-remote-code
