# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/0712681af22229d925129aea9fd6691b69ed007d/docs/advanced_features/hicache_best_practices.md (Integration with PD Disaggregation, decode node), seen 2026-12-02: the block as the page writes it, its lines with the comment after one backslash (kept verbatim).
# release: sglang 0.5.23 (the page names no release and its commit is not dated here: the newest bundled release on which every command taken from the page is accepted (flags, choices, variables, KV connectors and config keys by the schemas generated from the wheels), the page's era by its own flags: sglang 0.5.3.post3-0.5.23)
# at that release (true finding): SH003 error: line 15 ends `\  # Enable ...`: the backslash escapes the first blank, not the newline, so the command ends there with an argument ' ' and the last three lines (--disaggregation-ib-device, --disaggregation-mode decode, --disaggregation-transfer-backend) run as a command of their own
# at that release (true finding): PA022 error: --disaggregation-decode-enable-offload-kvcache takes no value, so SGLang's parser (no positionals) refuses the ' ' with "unrecognized arguments"
# with no options (true finding): SH003 error: the same (PA022 is a note then: the flag exists from 0.5.3.post3 on and the release is assumed)
python3 -m sglang.launch_server \
  --model-path /xxx/DeepSeek-R1/ \
  --tp 8 \
  --host 0.0.0.0 \
  --port 10000 \
  --enable-metrics \
  --enable-cache-report \
  --page-size 64 \
  --hicache-ratio 2 \
  --hicache-size 0 \
  --hicache-io-backend direct \
  --hicache-write-policy write_through \
  --hicache-storage-backend hf3fs \
  --hicache-storage-prefetch-policy wait_complete \
  --disaggregation-decode-enable-offload-kvcache \  # Enable async KV cache offloading in decode node
  --disaggregation-ib-device mlx5_0 \
  --disaggregation-mode decode \
  --disaggregation-transfer-backend mooncake
