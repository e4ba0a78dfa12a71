# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/0baaf0eaef91351b3916e51f200ea96fe8566f99/docs/deployment/frameworks/open-webui.md, seen 2026-12-03: the server line of step 2.
vllm serve qwen/Qwen1.5-0.5B-Chat
