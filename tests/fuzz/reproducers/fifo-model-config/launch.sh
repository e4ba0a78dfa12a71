#!/bin/bash
python3 -m sglang.launch_server --model-path /m
