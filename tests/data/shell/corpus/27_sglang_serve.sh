#!/bin/bash
sglang serve --model-path /models/qwen --port 30000 --enable-metrics
