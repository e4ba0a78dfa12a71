# https://github.com/vllm-project/vllm-ascend/issues/6942 -- vllm-ascend v0.14.0rc1 image started with --privileged and --device /dev/davinci6 --device /dev/davinci7 (2026-03), other containers already using NPUs; inside it the reporter first tried `export ASCEND_VISIBLE_DEVICES=6,7` then vllm serve; what worked: -e ASCEND_VISIBLE_DEVICES=6,7 at docker run and `export ASCEND_RT_VISIBLE_DEVICES=6,7` inside
export ASCEND_VISIBLE_DEVICES=6,7
vllm serve /data/model/Qwen3-30B-A3B --tensor-parallel-size 2 --enable-expert-parallel
