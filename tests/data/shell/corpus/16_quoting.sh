#!/bin/bash
# Single, double, ANSI-C quoting and backslash escapes.
TEMPLATE=$'line1\nline2\ttab'
A='single $HOME "x"'
B="double \$HOME \"q\" \\ back"
python3 -m sglang.launch_server --model-path /m \
  --a "$A" --b "$B" --c "$TEMPLATE" --d it\'s\ escaped --e "mixed"'quotes'$'\x41' \
  --f "" --g '' --h "${A}suffix"
