#!/bin/bash
OPENAI_API_KEY=$'Zq7v6OmkSMmRZcojjoFyTclf3Dj'
DB_PASSWORD=$"pwW3KxobPpNz5y"
python3 -m sglang.launch_server --model-path /models/qwen --port 30000
