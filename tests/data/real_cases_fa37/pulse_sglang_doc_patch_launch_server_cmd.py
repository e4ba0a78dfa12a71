# Reconstructed (not copied) after https://github.com/yxxTries/Pulse/blob/04f6b8982387cf0cc54118bdf348ceec744f2787/LLM/server.py
# A server starter after SGLang's docs: `launch_server_cmd` from sglang.test.doc_patch with Qwen2.5-0.5B at log
# level warning, then `wait_for_server`; kept as written.
from sglang.test.doc_patch import launch_server_cmd
from sglang.utils import wait_for_server, print_highlight, terminate_process

# The same as running in a terminal:
# python3 -m sglang.launch_server --model-path qwen/qwen2.5-0.5b-instruct --host 0.0.0.0

server_process, port = launch_server_cmd(
    """
python3 -m sglang.launch_server --model-path qwen/qwen2.5-0.5b-instruct \
 --host 0.0.0.0 --log-level warning
"""
)

wait_for_server(f"http://localhost:{port}")
