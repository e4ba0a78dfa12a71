#!/bin/bash
env SGLANG_ENABLE_SPEC_V2=1 CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server --model-path /m --tp 2
