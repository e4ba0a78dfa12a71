"""`argtrace why` on texts whose setting or origin is one step away from the site (docs/why.md, "Settings
one step away"): a field of a configuration class one flag takes whole, a plugin's flag, a library's own
check copied into a framework, a traceback's source line, torch's out-of-memory text without its step.

Each mechanism is run on a message other than the real report's that taught it (those are in
tests/test_real_cases_6.py and tests/test_real_cases_logs_2.py); the messages are the frameworks' own,
read from the bundled message index.
"""

from __future__ import annotations

from argtrace.commands.why import explain
from argtrace.layers.log.messages import candidates
from argtrace.layers.log.sites import settings_of
from tests.conftest import run_cli


def _first(text: str) -> dict:
    return explain(text)["matches"][0]


# --- a field of a configuration class that one flag takes whole ------------------------------------------
def test_a_speculative_config_field_read_in_its_own_class_is_that_flag() -> None:
    first = _first(
        "Either prompt_lookup_max or prompt_lookup_min must be provided when using the ngram method."
    )
    assert (first["function"], first["settings"]) == (
        "SpeculativeConfig.__post_init__",
        [
            {
                "name": "speculative_config",
                "flag": "--speculative-config",
                "fields": ["prompt_lookup_max", "prompt_lookup_min", "method"],
                "via": "self.prompt_lookup_max",
                "named_in_message": True,
            }
        ],
    )
    assert first["fix"] == (
        "make the condition false (self.prompt_lookup_min is None): change --speculative-config (its "
        "prompt_lookup_max, prompt_lookup_min, method)"
    )


def test_a_speculative_config_field_read_through_the_engine_config_is_that_flag() -> None:
    first = _first("LM Format Enforcer backend does not support speculative tokens")
    assert (first["function"], first["settings"]) == (
        "LMFormatEnforcerBackend.compile_grammar",
        [
            {
                "name": "speculative_config",
                "flag": "--speculative-config",
                "fields": ["num_speculative_tokens"],
                "via": "self.vllm_config.speculative_config.num_speculative_tokens",
            }
        ],
    )


def test_a_field_with_its_own_flag_stays_that_flag() -> None:
    # VllmConfig is no class a flag takes whole: its reads keep their own flags
    first = _first("max_num_scheduled_tokens is set to -8, which does not allow any tokens to be scheduled")
    assert [(s["name"], s["flag"], s.get("fields")) for s in first["settings"]] == [
        ("max_num_scheduled_tokens", "--max-num-scheduled-tokens", None),
        ("max_num_batched_tokens", "--max-num-batched-tokens", None),
        ("speculative_config", "--speculative-config", None),
    ]


def test_the_text_view_names_the_fields() -> None:
    out = run_cli(
        ["why", "--framework", "vllm", "LM Format Enforcer backend does not support speculative tokens"]
    )
    assert (
        "  reads: speculative_config.num_speculative_tokens (--speculative-config)" in out.stdout.splitlines()
    )


# --- the message's own advice names the setting -----------------------------------------------------------
def test_the_setting_a_message_tells_to_change_comes_first() -> None:
    # our own minimal message (the swap-space one is vllm 0.10.2's, tests/test_real_cases_5.py): the
    # condition reads --block-size, the advice names --max-num-seqs in words
    got = settings_of(
        "vllm",
        "0.33.0",
        ["self.cache_config.block_size"],
        "Not enough KV cache blocks. Please lower the max num seqs or the block size.",
    )
    assert got == [
        {"name": "max_num_seqs", "flag": "--max-num-seqs", "named_in_message": True, "in_words": True},
        {"name": "block_size", "flag": "--block-size", "via": "self.cache_config.block_size"},
    ]


# --- a plugin's flag ------------------------------------------------------------------------------------
def test_a_plugin_flag_other_than_its_switch_is_the_plugins() -> None:
    first = _first("vllm: error: unrecognized arguments: --stage-configs-path /cfg/stages.yaml")
    assert first["settings"] == [
        {"name": "stage_configs_path", "flag": "--stage-configs-path", "plugin": "vllm-omni"}
    ]
    assert first["fix"] == (
        "--stage-configs-path is not a vLLM flag: it is vllm-omni's (vllm-omni 0.14.0-0.26.0 add it), read "
        "only when vllm-omni's own `vllm`/`vllm-omni` command parses the launch with --omni on the command "
        "line; vLLM's own parser refused it: vllm-omni is not installed, or vLLM was installed after it "
        "(vllm-omni 0.14.0-0.18.0 install their command as `vllm`, and installing vLLM puts vLLM's back); "
        "install the vllm-omni release of vLLM's major.minor after vLLM, or start it with `vllm-omni serve "
        "...`"
    )


def test_a_plugin_flag_without_the_program_name_finds_its_framework() -> None:
    first = _first("error: unrecognized arguments: --omni")
    assert (first["framework"], first["function"], [s.get("plugin") for s in first["settings"]]) == (
        "vllm",
        "FlexibleArgumentParser.parse_args",
        ["vllm-omni"],
    )


def test_a_misspelt_plugin_flag_is_no_plugins() -> None:
    first = _first("vllm: error: unrecognized arguments: --omnii")
    assert (first["settings"], first["fix"]) == ([], "--omnii is not a vLLM flag in any bundled release")


# --- a library's own check, copied into the frameworks -------------------------------------------------
def test_a_flash_attention_check_is_the_librarys_with_its_copies() -> None:
    section = explain("AssertionError: paged KV not supported on SM 8.0")
    first, *copies = section["matches"][:3]
    assert (first["framework"], first["file"], first["releases"], first["settings"]) == (
        "flash_attn",
        "flash_attn/cute/interface.py",
        ["4.0.0b36"],
        [],
    )
    assert [(c["framework"], c["vendored_from"], c["settings"]) for c in copies] == [
        ("vllm", {"library": "flash_attn", "file": "flash_attn/cute/interface.py"}, []),
        ("sglang", {"library": "flash_attn", "file": "flash_attn/cute/interface.py"}, []),
    ]
    assert copies[0]["fix"] == (
        "flash_attn's own check refused what the framework passed it (not (page_table is None)): the text "
        "does not say which server setting led the launch to this kernel; `argtrace log` on the server log "
        "shows the configuration it ran with"
    )


def test_a_traceback_source_line_gives_its_message() -> None:
    assert candidates('    raise ValueError(f"block_size {bs} must divide {n}")') == [
        "block_size must divide"
    ]
    assert candidates('assert x > 0, "x must be positive"') == ["x must be positive"]
    # not a statement: left as it is
    assert candidates("assertion failed: raise the limit") == ["assertion failed: raise the limit"]


# --- torch's out-of-memory text: the step decides the fix ------------------------------------------------
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity "
    "of 79.19 GiB"
)


def test_an_oom_without_its_step_says_so_and_asks_for_the_log() -> None:
    (sig,) = explain(OOM)["signatures"]
    assert (sig["id"], sig["step"], [s["step"] for s in sig["by_step"]]) == (
        "cuda-oom",
        "unknown",
        ["weights", "kv_cache", "mamba_cache", "cuda_graph", "draft_worker", "serving (or any other)"],
    )
    assert sig["fix"] == (
        "this text does not say at which step the process was (loading the weights, allocating the KV "
        "cache, capturing CUDA graphs, serving ...), and each step has another fix: run `argtrace log` on "
        "the server log, which finds the step"
    )
    assert [m["command"] for m in explain(OOM)["more"]][-1] == "argtrace log LOG"


def test_an_oom_whose_frames_show_the_step_takes_that_steps_fix() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/model_loader/'
        'default_loader.py", line 300, in load_weights\n'
        "    self.load_weights(model, model_config)\n" + OOM
    )
    (sig,) = explain(text)["signatures"]
    assert (sig["id"], sig["step"], "by_step" in sig) == ("cuda-oom-weights", "weights", False)
