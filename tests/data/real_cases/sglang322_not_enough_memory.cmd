# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/322 (sglang 0.1.13), seen 2026-12-02: the command line as the report shows it (placeholders where it redacts).
python -m sglang.launch_server --model-path /llm_path/hf_model_mistral_7B_Instruct_v0_2 --port 30000
