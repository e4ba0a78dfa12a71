#!/bin/bash
PORT=1
setport() {
  local PORT=2
  inner
}
inner() { echo "$PORT"; GLOBAL_SET=yes; }
setport
python3 -m sglang.launch_server --model-path /m --port "$PORT" --g "$GLOBAL_SET"
