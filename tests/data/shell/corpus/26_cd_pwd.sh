#!/bin/bash
mkdir -p run/sub
cd run
cd sub
cd ..
python3 -m sglang.launch_server --model-path ./model --dir "$PWD" --old "$OLDPWD"
