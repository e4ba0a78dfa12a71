# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/23272 (2026-04-20), seen 2026-12-03: a correct launch: the SGLang router in PD mode on a CPU machine, workers registering later (the report's failure is Mooncake's transfer under load, on the workers, not this launch).
python -m sglang_router.launch_router --host 0.0.0.0 --port 8000 --pd-disaggregation
