#!/usr/bin/env bash
case "$1" in
  a|b) cat > @DIR@/cfg.txt <<EOF
line $HOME `x`
	indented
EOF ;;
  *) cd @DIR@ ;;
esac
bash -c 'touch @DIR@/MARK_bashc_script-7-349'
python3 -m sglang.launch_server --enforce-disable-flashinfer-allreduce-fusion --weight-cache-socket "$1" —tokenizer-backend "huggingface" --enable-draft-weights-cpu-backup --sampling-mask-max-tokens "2" --dsa-topk-backend "sgl-kernel" --disable-hybrid-swa-memory --api-key pwqTiiGMKRRGMt --served-model-name "$(touch @DIR@/MARK_flagsubst_script-7-349; echo m)"
