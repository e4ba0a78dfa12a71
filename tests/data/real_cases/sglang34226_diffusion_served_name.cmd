# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/34226, seen 2026-12-02: the command line as the report shows it (no release named).
sglang serve --model-path /data01/models/MiniMax-H3 --model-variant fl2va --num-gpus 8 --ulysses-degree 8 --performance-mode speed --host 0.0.0.0 --port 30010 --served-model-name minimax-h3
