# source: https://github.com/QwenLM/Qwen3-VL/issues/923 (2025-03-10) "使用vLLM运行Qwen2.5-VL-7B，3张24GB的显卡，运行报OOM" (Qwen2.5-VL-7B on 24 GB cards: OOM)
# GPU: 24 GB cards (name not in the part returned). Release: V0 engine (determine_num_available_blocks in the traceback).
# The OOM is raised in the profile run (determine_num_available_blocks). Model config: models/qwen2.5-vl-7b.
from fastapi import FastAPI
from vllm import LLM, SamplingParams

import os
os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"

model = LLM(
            model="/data/ai-models/modelscope/Qwen2.5-VL-7B",
            tensor_parallel_size=2,
            gpu_memory_utilization=0.7
        )

app = FastAPI()
