# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/18925 (2026-02-17), seen 2026-12-04: Kimi K2.5 on two H100 nodes with TP 8 and PP 2 failed "AssertionError: Pipeline Parallel is not compatible with this model." after about an hour of loading: SGLang's ModelRunner asserts that the model class's forward() takes pp_proxy_tensors, which kimi_k25.py's did not (the same start works on vLLM). The PR's command; the address variables are the PR's placeholders, given here.
MODEL_PATH=moonshotai/Kimi-K2.5
MASTER_IP=10.0.0.1
MASTER_PORT=20000
RANK=0
python3 -m sglang.launch_server \
  --model-path $MODEL_PATH \
  --trust-remote-code \
  --dist-init-addr $MASTER_IP:$MASTER_PORT \
  --nnodes 2 \
  --node-rank $RANK \
  --tp-size 8 \
  --pp-size 2 \
  --tool-call-parser kimi_k2 \
  --reasoning-parser kimi_k2
