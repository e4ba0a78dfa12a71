# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/18620 (2026-02-11), seen 2026-12-02: the server launch of the report, which serves; the failure is in the separate bench_serving client that reads the path as a hub id.
sglang serve --model-path /local/path/FLUX.1-dev/
