# Reconstructed (not copied) after https://github.com/tutu329/server-install/blob/8b947e0d4d271e11e0f87bcc4308aa5fb2e20bce/projects/%E9%99%A2h20%E6%9C%8D%E5%8A%A1%E5%99%A8_openeuler/sh/ds-v3-671b-8.sh, seen 2026-12-04: the exported GPU list, conda's profile script sourced and activated, the DeepSeek-V3 server written with `--flag=value` words (`--tp=8`) ending in a blank, and commented-out speculative flags after it.
export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
source /home/tutu/miniconda3/etc/profile.d/conda.sh
conda activate sgl44
python -m sglang.launch_server --served-model-name=ds-v3 --model-path=/home/tutu/models/DeepSeek-V3-0324 \
--enable-p2p-check --trust-remote-code --host=0.0.0.0 --port=28001 \
--mem-fraction-static=0.9 \
--random-seed=446369220 \
--tp=8 --max-total-tokens=65000 --max-running-requests=64 
# --disable-radix \
# --speculative-algo NEXTN \
# --speculative-num-draft-tokens 4

