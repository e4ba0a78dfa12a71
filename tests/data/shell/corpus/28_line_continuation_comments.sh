#!/bin/bash
# Continuations inside words and comments between commands.
python3 -m sglang.launch_ser\
ver --model-path /m \
  --port 30000 `# inline comment via backquotes` \
  --tp 1
# a comment
