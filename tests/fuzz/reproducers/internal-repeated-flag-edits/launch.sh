#!/bin/bash
python -m vllm.entrypoints.openai.api_server --model /m-m --model /m-m --model /m-m --model /models/qwen2.5-7b --port 8000 --port 8000 --port 8001
