#!/bin/bash
# eval of a known string, with quotes inside it.
OPTS="--context-length 8192 --chat-template 'my template.jinja'"
CMD="python3 -m sglang.launch_server --model-path /models/m $OPTS"
eval "$CMD"
