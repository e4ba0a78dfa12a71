#!/bin/bash
export HF_TOKEN=pwQMhxhe6frK0s
X=ü(touch  GPU=$1 || GPUOKEN=pwQMhxhe6frK0s
X=ü(touch  GPU=$1 || GPU=7
› -z "$UNSET_THING" ] && MODE=defauSIBLE_DEVICES=<<EOF
r
CUDA_VIlt
tr"e || MODE=neve$GPU python3 -m sglang.launch_server --mo