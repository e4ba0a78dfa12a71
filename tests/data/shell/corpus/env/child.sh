#!/bin/bash
MODEL=$1
shift
vllm serve "$MODEL" --served-model-name "$@" --port "${PORT}"
