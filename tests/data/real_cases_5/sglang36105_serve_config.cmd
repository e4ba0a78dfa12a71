# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/36105 (2026-08-23, image lmsysorg/sglang:latest-cu130), seen 2026-12-02: `sglang serve --config my_config.yaml` stops with "--model-path required" although the file has `model-path:`; `python3 -m sglang.launch_server --config my_config.yaml` works. The file itself is not posted.
sglang serve --config my_config.yaml
