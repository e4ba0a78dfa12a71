# source: none, a variant (not a report) after https://github.com/sgl-project/sglang/issues/5576's model: Gemma-3-12B-it unquantized, --dtype auto, on one L40S (48 GB).
# Served at bfloat16 (24.4 GB of weights; SGLang 0.5.23 srt/configs/model_config.py:2303-2315 casts the float32 text config down), it fits;
# counted at the text config's float32 (48.9 GB) it would not: the wrong MM001 error this batch removed.
python3 -m sglang.launch_server --model-path google/gemma-3-12b-it --context-length 8192
