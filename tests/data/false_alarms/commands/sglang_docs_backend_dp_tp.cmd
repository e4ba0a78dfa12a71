# Reconstructed (not copied) after https://sgl-project.github.io/backend/backend.html (Additional Server Arguments: data and tensor parallelism together), seen 2026-12-02: the launch with its flags; --dp is the page's spelling, an abbreviation of --dp-size.
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --dp 2 --tp 2
