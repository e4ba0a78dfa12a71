# source: none, a variant (not a report) after https://github.com/sgl-project/sglang/issues/5576's model, served by vLLM: Gemma-3-12B-it unquantized on one L40S (48 GB).
# vLLM 0.33.0 takes the top-level torch_dtype (bfloat16; config/model.py:2440-2442 would cast a float32 one down too): 24.4 GB of weights, it fits.
vllm serve google/gemma-3-12b-it --max-model-len 8192
