import subprocess

ENV = {}
ENV[[1]] = "x"
OTHER = {[1]: "x", "A": 1}
subprocess.run(["vllm", "serve", "m"], env=ENV)
subprocess.run(["vllm", "serve", "m"], env=OTHER)
