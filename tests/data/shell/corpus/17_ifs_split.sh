#!/bin/bash
LIST="a,b,,c"
IFS=,
set -- $LIST
IFS=' '
python3 -m sglang.launch_server --model-path /m --n "$#" --items "$1" "$2" "$3" "$4"
