# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/322, seen 2026-12-02: the launch of Mistral-7B-Instruct-v0.2 on sglang 0.1.13 that stops with "Not enough memory. Please try to increase --mem-fraction-static".
python -m sglang.launch_server --model-path /llm_path/hf_model_mistral_7B_Instruct_v0_2 --port 30000
