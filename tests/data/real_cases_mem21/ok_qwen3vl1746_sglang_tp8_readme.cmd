# source: https://github.com/QwenLM/Qwen3-VL/issues/1746 (2025-11-03 comment by wulipc) "qwen3 vl 235b instuct sglang 部署 爆显存"
# The maintainer's answer to the dp-size 8 launch on 8x H800: the README's launch. Model config: models/qwen3-vl-235b-a22b.
python -m sglang.launch_server --model-path Qwen/Qwen3-VL-235B-A22B-Instruct --host 0.0.0.0 --port 22002 --tp 8
