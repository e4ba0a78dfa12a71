import os
import sys

cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "m"]
env = dict(os.environ)
if len(sys.argv) > 1:
    cmd += ["--api-key", "pwRY62S2IqtTug"]
    env["HF_TOKEN"] = "sk-F1HCFThka4eOKpBmRCC7mPiF"
else:
    cmd += ["--x0", str(0)]
os.system("touch @DIR@/MARK_pyif; " + " ".join(cmd))
