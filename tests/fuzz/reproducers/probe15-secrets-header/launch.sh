#!/bin/bash
curl -s -H "X-Api-Key: pwwR8LANxWbxGH" http://h/v1/models
export HF_TOKEN=Zq7pfd4vGKRwvGoz3\
F67wLksW02
python3 -m sglang.launch_server --model-path m --tp 2 --tp 4 --api-key "$HF_TOKEN"
