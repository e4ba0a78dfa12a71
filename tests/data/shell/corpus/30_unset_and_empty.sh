#!/bin/bash
EXTRA_ARGS=""
OPT=
unset OPT
# shellcheck disable=SC2086
python3 -m sglang.launch_server --model-path /m $EXTRA_ARGS ${OPT:+--opt "$OPT"} ${EXTRA_ARGS:-} --port 30000
