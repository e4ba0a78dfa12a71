# Reconstructed (not copied) after https://pythonsheets.com/notes/llm/vllm-serving.html (Quick Start), seen 2026-12-02: the serve command with its flags, re-typed as one line.
vllm serve Qwen/Qwen2.5-7B-Instruct --host 0.0.0.0 --port 8000
