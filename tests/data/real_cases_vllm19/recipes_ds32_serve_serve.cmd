# https://github.com/vllm-project/recipes/blob/008786cb492fabc5db44f11ee7c793e63d921d6c/DeepSeek/DeepSeek-V3_2.md (recipe, 2025-12, nightly: "serve" written twice, so model_tag is 'serve' and the model is left over)
VLLM_MOE_USE_DEEP_GEMM=0 vllm serve serve deepseek-ai/DeepSeek-V3.2 \
   --tensor-parallel-size 8 \
   --tokenizer-mode deepseek_v32 \
   --tool-call-parser deepseek_v32 \
   --reasoning-parser deepseek_v3
