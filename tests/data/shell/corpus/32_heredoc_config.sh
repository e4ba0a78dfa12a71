#!/bin/bash
cat > conf/gen.yaml <<YAML
model-path: /models/qwen
port: 30000
YAML
cat <<'TXT' > /dev/null
$NOT_EXPANDED --fake-flag
TXT
python3 -m sglang.launch_server --config conf/gen.yaml --log-level info
