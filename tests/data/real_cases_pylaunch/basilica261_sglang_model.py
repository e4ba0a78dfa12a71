# https://github.com/one-covenant/basilica/pull/261 -- examples/07_sglang_model.py, its serve() as the PR's review thread quotes it (2025-12-04); the rest of the file is not in the thread. A correct launch.
def serve():
    """Start SGLang server with Qwen model."""
    import subprocess

    cmd = [
        "python3", "-m", "sglang.launch_server",
        "--model-path", "Qwen/Qwen2.5-0.5B-Instruct",
        "--host", "0.0.0.0",
        "--port", "30000",
        "--mem-fraction-static", "0.8",
    ]
    subprocess.Popen(cmd).wait()
