# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/2697 (2025-01-01, merged), seen 2026-12-04: a correct launch: the structured-output docs' server with the XGrammar backend.
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-8B-Instruct --port 30000 --host 0.0.0.0 --grammar-backend xgrammar
