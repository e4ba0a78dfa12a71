# Reconstructed (not copied) after https://github.com/leslie-fang-intel/torch_script/blob/6436ae962b3cdd2d26505ee91e7dc60134e01f4e/sglang/test_start_server.py
# A script after SGLang's notebooks: `launch_server_cmd` (from a local `patch` module in CI, else sglang.utils)
# given the launch as a triple-quoted string with a backslash continuation, then `wait_for_server`; kept as written.
from sglang.test.test_utils import is_in_ci
from sglang.utils import wait_for_server, print_highlight, terminate_process

if is_in_ci():
    from patch import launch_server_cmd
else:
    from sglang.utils import launch_server_cmd

# The same as running in a terminal:
# python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-8B-Instruct --host 0.0.0.0

server_process, port = launch_server_cmd(
    """
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-8B-Instruct \
 --host 0.0.0.0
"""
)

wait_for_server(f"http://localhost:{port}")
