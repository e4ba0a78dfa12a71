# https://github.com/sgl-project/sglang/issues/4270 (2025-03-10): the ssh launch as posted (the whole remote
# command in single quotes: nothing expands locally). The report's hang is not in the words.
ssh 10.82.113.81 '/home/my/.opt/anaconda3/envs/sglang-source/bin/python -m sglang.launch_server --host 0.0.0.0 --port 9888 --tensor-parallel-size 1 --data-parallel-size 1 --base-gpu-id 7 --served-model-name deepseek-r1 --model-path /home/my/resources/huggingface/models/Qwen/Qwen2.5-7B-Instruct --trust-remote-code --mem-fraction-static 0.7 --grammar-backend xgrammar'
