#!/bin/bash
docker run --gpus all --env-file ./app.env lmsysorg/sglang python3 -m sglang.launch_server --model-path /m
