# Reconstructed (not copied) after https://github.com/zmarty/zmarty.github.io/blob/5d976b7a668eb9b625decee1f15e4173f1d6599e/scratch.md, seen 2026-12-04: a notes page's launch block as a script: GLM-4.5-Air AWQ (FP16 mix) from a local directory with a trailing slash, `--enable-expert-parallel` with TP 1, swap space, 512 sequences, the glm45 tool and reasoning parsers (kept: the first block's command; the download line and the second block dropped)
vllm serve \
    "/models/original/QuantTrio-GLM-4.5-Air-AWQ-FP16Mix/" \
    --served-model-name GLM-4.5-Air-AWQ-FP16Mix \
    --enable-expert-parallel \
    --swap-space 16 \
    --max-num-seqs 512 \
    --gpu-memory-utilization 0.97 \
    --tensor-parallel-size 1 \
    --trust-remote-code \
    --tool-call-parser glm45 \
    --reasoning-parser glm45 \
    --enable-auto-tool-choice \
    --host 0.0.0.0 \
    --port 8000
