# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/28693 (2026-06-19, merged), seen 2026-12-04: a correct launch: the cookbook's Laguna-XS.2 command once the PR added --trust-remote-code; sizes are stand-ins.
python3 -m sglang.launch_server --model-path poolside/Laguna-XS.2 --tp 1 --trust-remote-code --host 0.0.0.0 --port 30000
