#!/bin/bash
cd "$(dirname "$0")" || exit 1
source env/common.sh
export PORT
vllm serve /models/m --port "$PORT"
