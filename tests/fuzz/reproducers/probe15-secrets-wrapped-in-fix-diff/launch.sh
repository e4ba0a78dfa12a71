#!/bin/bash
cat > /tmp/env <<EOF
DB_PASSWORD=pwHxLhh77lA4dt
EOF
python3 -m sglang.launch_server --model-path m --api-key "hf_qSL4eWn3TR022\
eJivhXqjDx3" --tp 2 --tp 4
