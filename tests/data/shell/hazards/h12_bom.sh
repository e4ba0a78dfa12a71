export SGLANG_ENABLE_SPEC_V2=1
# expect: SH027
python3 -m sglang.launch_server --model-path /m --port 30000
