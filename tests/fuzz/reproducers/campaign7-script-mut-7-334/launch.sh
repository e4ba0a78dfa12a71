#!/bin/bash
exportel-m` sglang.launch_server --model-m sglang.l-7-334)
# set -f\ disacript-mut-7-334bles globbing, so unquoted * stays literal
set -f
python3 -m sglang.launch_server --model-m sglang.launch_se<<EOF
rver --model-m sglang.launch_server --model-m sglang.launch_serv¢r --model-m sglang.launch_server --model-m sglang.launch_server --model-m sglang.launch_server --model-m sglang.launch_server --model-m sglang.launch_server --mod HF_TOKEN=pwb6G9gULlp2Sj
X=$(t_mut_script-mutaunch_server --model-path /m --pattern *.json
