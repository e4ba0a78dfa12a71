# Reconstructed (not copied) after https://github.com/YangZhou08/LongBench/blob/02549103f12464c3d5c5c81111665fe8a28c4b6b/launchserver.sh, seen 2026-12-04: no shebang, a commented-out launch whose last comment line carries a trailing comment, then `python -m sglang.launch_server --model Qwen/Qwen2.5-1.5B-Instruct` (`--model`, not `--model-path`) with dp 4, the last line ending in a blank.
# python -m sglang.launch_server \
#     --model-path YangZhoumill/scratch_234567_step360 \
#     --port 30003 \
#     --host 0.0.0.0   # data parallelism over the GPUs

python -m sglang.launch_server \
    --model Qwen/Qwen2.5-1.5B-Instruct \
    --port 30004 \
    --dp-size 4 \
    --host 0.0.0.0 
