#!/bin/bash
# Reconstructed after the test command of https://github.com/sgl-project/sglang/pull/8644 ("fix router python parser for pd urls", 2025-08-01): the PD router alone, a prefill URL with no bootstrap port, a decode URL, the power_of_two policy; its log shows "mode: PrefillDecode { prefill_urls: [("http://127.0.0.1:30001", None)] ...".
python3 -m sglang_router.launch_router \
            --pd-disaggregation \
            --policy power_of_two \
            --prefill http://127.0.0.1:30001 \
            --decode http://127.0.0.8:30008 \
            --host 127.0.0.9 \
            --port 8000
