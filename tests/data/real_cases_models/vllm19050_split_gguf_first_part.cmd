# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/19050 (vLLM 0.8.5, comment of 2025-06-04; seen 2026-12-03): the Namespace the report prints: the first of five split GGUF files as the model, the folder as --tokenizer and --hf-config-path; it stops with "Quantization method specified in the model config (fp8) does not match the quantization method specified in the `quantization` argument (gguf)" (the folder's config.json is the original FP8 model's). Host, port and served name from the same Namespace; other settings of the script left out.
MODEL_PATH="/data2/jcxy/llm_model/DeepSeek-R1-0528-GGUF-UD-IQ2_XXS/DeepSeek-R1-0528-UD-IQ2_XXS-00001-of-00005.gguf"
SERVED_MODEL_NAME="DeepSeek-R1-0528"
export VLLM_USE_V1=0
export CUDA_VISIBLE_DEVICES=4,5
vllm serve "$MODEL_PATH" --tokenizer /data2/jcxy/llm_model/DeepSeek-R1-0528-GGUF-UD-IQ2_XXS --hf-config-path /data2/jcxy/llm_model/DeepSeek-R1-0528-GGUF-UD-IQ2_XXS --host 0.0.0.0 --port 6011 --served-model-name "$SERVED_MODEL_NAME"
