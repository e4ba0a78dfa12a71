# Reconstructed (not copied) after https://github.com/opendatalab/MinerU-Diffusion/issues/8 (2026-03-30, open), seen 2026-12-04: `sglang serve` of MinerU-Diffusion-V1-0320-2.5B with the dLLM flags fails: the architecture has no SGLang model class in the installed sglang (main), and the maintainers point to a fork that adds it (issue #10). The variables and the command as posted; the model directory's user part is the report's masked one.
export MODEL_PATH=/home/ubuntu/.xxxxx/llm/OpenDataLab/MinerU-Diffusion-V1-0320-2.5B
export PORT=8009
export CUDA_VISIBLE_DEVICES=2
export PYTHONPATH=/home/ubuntu/test/MinerU-Diffusion:$PYTHONPATH
uv run sglang serve --model-path /home/ubuntu/.newtranx/llm/OpenDataLab/MinerU-Diffusion-V1-0320-2.5B --host "0.0.0.0" --port 8009 --tp-size 1 --dllm-algorithm "LowConfidence" --disable-cuda-graph --attention-backend "triton" --sampling-backend "pytorch" --trust-remote-code
