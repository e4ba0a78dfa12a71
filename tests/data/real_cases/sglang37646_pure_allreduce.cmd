# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/37646, seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
sglang serve --model-path zai-org/GLM-5.2-FP8 --tp 8 --enable-flashinfer-pure-allreduce
