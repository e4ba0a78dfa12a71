#!/bin/bash
# Reconstructed (not copied) after https://github.com/red-hat-data-services/vllm-spyre/blob/ef4ccba541fccb64ec08971f94872542c36308b9/spyre_entrypoint.sh, seen 2026-12-02: keeps the two `source` lines of files that exist only in the image (the AIU setup, the venv's activate) and `exec vllm serve "$@"`
# args: ibm-granite/granite-3.3-8b-instruct --max-model-len 4096 --max-num-seqs 4 --tensor-parallel-size 4
source /etc/profile.d/ibm-aiu-setup.sh
source /opt/vllm/bin/activate
exec vllm serve "$@"
