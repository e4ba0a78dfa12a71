"""Values a server's start-up refuses or misreads (RS030-RS035, RS038, RS054, RS055, RS079-RS082;
layers/start_values.py, layers/start_raises.py, layers/start_overrides.py, layers/parser_names.py,
layers/disagg_spec.py, layers/deepep_deepgemm.py): a
KV-cache dtype the GPU that ``--gpu`` names cannot store, a model name that is neither a local path nor a
Hugging Face repo id, flags the release's own argument checks refuse or its warnings override, an Eagle3
draft under SGLang's EAGLE algorithm, a Hugging Face cache's repo folder given as the model, a GGUF reference
the release's loader does not take, a parser name the release registers no parser for, a speculative
algorithm whose draft input the release's PD decode server never builds, and DeepEP's low-latency mode on a
GPU the release enables no DeepGEMM for. Each follows real code: vLLM's
attention backends, huggingface_hub's ``validate_repo_id``, the releases' indexed raise sites and log calls,
SGLang's auxiliary hidden-state capture, the releases' parser registries and disaggregation draft inputs."""

from __future__ import annotations

from argtrace.rules import Example, Rule


def _static(command: str, version: str, *extra: str) -> Example:
    return Example(argv=["check", "--no-resolve", *extra, "--framework-version", version, "-c", command])


RS030 = Rule(
    code="RS030",
    layer="resolution",
    severity="error",
    title="An fp8 KV cache on a GPU whose attention backend refuses it",
    basis="framework-code",
    rationale=(
        "Below compute capability 7.5 (V100: 7.0) vLLM has no FlashAttention (SM80+) or FlashInfer (SM75+) "
        "backend, so it selects the Triton attention backend, whose constructor raises "
        '"FP8 KV cache is not supported by the Triton attention backend on ... native FP8 (fp8e4nv) '
        'requires SM89+" (TritonAttentionImpl.__init__ in vllm/v1/attention/backends/triton_attn.py, '
        "vLLM 0.24.0 on; TritonMLAImpl for MLA models, 0.26.0 on). A vLLM fork without that check ends in "
        'Triton\'s own "type fp8e4nv not supported in this architecture" when a kernel compiles '
        "(https://github.com/1CatAI/1Cat-vLLM/issues/27). The GPU is not in the command: the rule needs "
        "--gpu."
    ),
    fix="--kv-cache-dtype auto (or float16) on this GPU; an fp8 KV cache needs compute capability 8.9+",
    example=_static("vllm serve /m --kv-cache-dtype fp8", "0.33.0", "--gpu", "v100"),
    correct=_static("vllm serve /m --kv-cache-dtype fp8", "0.33.0", "--gpu", "h100"),
    exceptions="Only for the releases whose message index has that check (0.24.0-0.33.0 bundled); nothing "
    "without --gpu, and nothing from SM75 up, where other backends may take an fp8 cache.",
)

RS031 = Rule(
    code="RS031",
    layer="resolution",
    severity="warning",
    title="The model is neither a local path nor a valid Hugging Face repo id",
    basis="assumed",
    rationale=(
        "A --model-path/--model value that is not an existing local directory is loaded from the Hub, and "
        "huggingface_hub's validate_repo_id refuses ids outside its rules before any download "
        "(HFValidationError: at most one '/', only letters, digits, '-', '_', '.', no '--' or '..', no "
        "leading or trailing '-' or '.', at most 96 characters, no '.git' at the end; "
        "huggingface_hub/utils/_validators.py). `repo:revision` is not an id: the revision has its own "
        "flag. Whether a local directory of that name exists where the server starts is not known from "
        "the command, so the verdict rests on that assumption."
    ),
    fix="give the repo id alone (the branch or tag to --revision), or the path of a local directory",
    example=Example(
        argv=["check", "--no-resolve", "-c", "python3 -m sglang.launch_server --model-path org/model:branch"]
    ),
    correct=Example(
        argv=["check", "--no-resolve", "-c", "python3 -m sglang.launch_server --model-path org/model"]
    ),
    exceptions="Not for values that look like paths (starting with /, ./, ../ or ~, or with more than one "
    "'/'), URLs (s3://, gs://), values holding a variable or placeholder ($MODEL, <MODEL>), "
    "GGUF files, or when a directory of that name exists where argtrace runs; not with "
    "VLLM_USE_MODELSCOPE/SGLANG_USE_MODELSCOPE (ModelScope ids).",
)

RS032 = Rule(
    code="RS032",
    layer="resolution",
    severity="error",
    title="The release's own argument check refuses the flags as given",
    basis="framework-code",
    rationale=(
        "After argparse accepts every flag, the framework's argument checks (SGLang's ServerArgs and its "
        "arg_groups hooks, vLLM's EngineArgs and config classes) raise for combinations they refuse: the "
        "server exits at start-up before loading anything. The raise-site index of each bundled release "
        "(scripts/gen_schemas.py) records every raise with the if-tests that lead to it, a local the tests "
        "read replaced by its one assignment that reaches them (resolver/local_defs.py); a site whose tests "
        "read only settings the launch gives, literals, and/or/not, comparisons, `in` and conditional "
        "expressions is evaluated on the parsed values. It is what the resolver (RS001) shows by running the "
        "code, available without a resolver environment. Assumed: the values reach the check as parsed, and "
        "the function runs at every start (its caller's own tests are not read)."
    ),
    fix="change or remove one of the flags the check reads (its message says which)",
    example=_static(
        "python -m sglang.launch_server --model-path /m --enable-hierarchical-cache --disable-radix-cache",
        "0.5.23",
    ),
    correct=_static("python -m sglang.launch_server --model-path /m --enable-hierarchical-cache", "0.5.23"),
    exceptions="Nothing when a test calls a function, reads the environment, the model, a local variable "
    "assigned more than once, in a branch or loop, or from a call with arguments, or "
    "a setting the launch does not give (its default may be rewritten before the check); nothing for "
    "model-specific modules (model_overrides/); nothing when the resolver ran (RS001 says what it raised).",
)

RS055 = Rule(
    code="RS055",
    layer="resolution",
    severity="warning",
    title="The release's start-up overrides what two flags of the launch ask for",
    basis="framework-code",
    rationale=(
        "SGLang's argument code logs a warning where it replaces a setting because of another one: "
        '"FlashAttention3 only supports fp8_e4m3 if using FP8; Setting attention backend to triton." for '
        "--attention-backend fa3 with --kv-cache-dtype fp8_e5m2 (sglang#18550): the server starts, on "
        "another backend than the one written. The message index of each bundled release records the log "
        "call with its if-tests; a warning of the argument modules whose tests read two or more settings,"
        " all given by the launch, is evaluated on the parsed values, as RS032 does for raises. Assumed: "
        "the values reach the function as parsed, and it runs at every start (its caller's tests are not "
        "read)."
    ),
    fix="change one of the flags the warning reads so the release keeps what you wrote",
    example=_static(
        "python -m sglang.launch_server --model-path /m --attention-backend fa3 --kv-cache-dtype fp8_e5m2",
        "0.5.23",
    ),
    correct=_static(
        "python -m sglang.launch_server --model-path /m --attention-backend fa3 --kv-cache-dtype fp8_e4m3",
        "0.5.23",
    ),
    exceptions="SGLang only; nothing for a warning whose tests read one setting (its caller may test the "
    "rest: 0.5.14's EAGLE-only mixed-chunk warning), call a function, or read a setting the launch does not "
    "give; nothing for deprecation warnings (PA005) or when the resolver ran (RS002 shows the change). A "
    "note (info) where the warning's reason clause alone names the settings it tests ('Cuda graph is "
    "disabled because deepep_mode=`normal`'): it changes a setting the launch did not write, and keeps what "
    "the launch wrote.",
)

RS033 = Rule(
    code="RS033",
    layer="resolution",
    severity="warning",
    title="An Eagle3 draft under SGLang's --speculative-algorithm EAGLE",
    basis="assumed",
    rationale=(
        "An EAGLE-3 draft's fc layer reads three of the target's hidden states concatenated; SGLang captures "
        "them only when the algorithm is EAGLE3 (_resolve_eagle_aux_hidden_state sets "
        "eagle_use_aux_hidden_state under spec_algorithm.is_eagle3(), "
        "sglang/srt/model_executor/model_runner_components/spec_aux_hidden_state.py in 0.5.23). Under EAGLE "
        "the draft gets one hidden state, skips its fc projection and predicts garbage: the server starts "
        "and answers correctly, but every draft token is rejected (accept length 1.0) and decoding is slower "
        "than without speculation, with no error or warning "
        "(https://github.com/sgl-project/sglang/pull/21272, closed unmerged). The draft's kind is its "
        "config.json's architecture (LlamaForCausalLMEagle3), which argtrace does not download: it is "
        "assumed from the draft's name."
    ),
    fix="--speculative-algorithm EAGLE3",
    example=_static(
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
        "--speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE3-Llama-3.1-"
        "Instruct-8B",
        "0.5.23",
    ),
    correct=_static(
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
        "--speculative-algorithm EAGLE3 --speculative-draft-model-path jamesliu1/sglang-EAGLE3-Llama-3.1-"
        "Instruct-8B",
        "0.5.23",
    ),
    exceptions="Only when the draft's name (the last part of its path or repo id) holds 'eagle3' (any case); "
    "a draft named otherwise is not judged, and the draft's config.json is not read.",
)


RS034 = Rule(
    code="RS034",
    layer="resolution",
    severity="warning",
    title="The model is a Hugging Face cache's repo folder, not one of its snapshots",
    basis="assumed",
    rationale=(
        "huggingface_hub stores a downloaded repo ORG/NAME in the cache folder `models--ORG--NAME` "
        "(`repo_folder_name`: the repo type, then the id's parts joined with `--`), which holds `blobs/`, "
        "`refs/` and `snapshots/<revision>/`; only a snapshot folder holds the model's files (config.json "
        "and the weights, as links into blobs/). SGLang and vLLM load a local model from the folder they are "
        "given: the repo folder has no config.json, so the start fails (vLLM: the path is then read as a "
        "repo id and huggingface_hub raises HFValidationError, vllm#12378). Assumed from the folder's name: "
        "its content is not read unless the folder exists where argtrace runs."
    ),
    fix="give the snapshot folder (`.../models--ORG--NAME/snapshots/<revision>`), or the repo id "
    "ORG/NAME with "
    "HF_HUB_CACHE set to the folder that holds `models--ORG--NAME`",
    example=Example(
        argv=[
            "check",
            "--no-resolve",
            "-c",
            "vllm serve /data/hf/hub/models--Qwen--Qwen3-0.6B",
        ]
    ),
    correct=Example(
        argv=[
            "check",
            "--no-resolve",
            "-c",
            "vllm serve "
            "/data/hf/hub/models--Qwen--Qwen3-0.6B/snapshots/c1899de289a04d12100db370d81485cdf75e47ca",
        ]
    ),
    exceptions="Not when the folder exists here and has a config.json (a folder that only borrowed "
    "the name).",
)

RS035 = Rule(
    code="RS035",
    layer="resolution",
    severity="warning",
    title="A GGUF model reference the release's loader does not take",
    basis="assumed",
    rationale=(
        "Which GGUF references a release loads is its loader's own rule, read from each release's code "
        "(frameworks/data/model_refs.json, scripts/gen_model_refs.py): vLLM 0.5.5-0.9.2's "
        'GGUFModelLoader._prepare_weights takes only a local .gguf file ("... is not a file."), '
        "0.10.2-0.11.2 "
        "also a raw URL and <repo_id>/<filename>.gguf, 0.12.0-0.23.0 also <repo_id>:<quant_type> (vLLM "
        "PR#29137); SGLang takes a local file only up to 0.5.17 and resolves Hub references from 0.5.18. A "
        "repo id with --load-format gguf or --quantization gguf, or a <repo_id>:<quant_type>, given to a "
        "release whose loader does not take that form stops the start (before the loader, a `:` in the id "
        "fails huggingface_hub's repo-id check). Assumed: no local file of that name exists where the server "
        "starts, and a release named only by its family (0.8.4) loads as the bundled one (0.8.5.post1)."
    ),
    fix="download the .gguf file and give its local path (the original repo to --tokenizer), or use a "
    "release whose loader takes the form",
    example=_static("vllm serve unsloth/Qwen3-0.6B-GGUF:IQ1_S --tokenizer Qwen/Qwen3-0.6B", "0.11.2"),
    correct=_static("vllm serve unsloth/Qwen3-0.6B-GGUF:IQ1_S --tokenizer Qwen/Qwen3-0.6B", "0.13.0"),
    exceptions="Nothing when the release is not named (some releases take the form), for releases whose "
    "message index has no GGUF loader (vLLM 0.24.0 on), or when a file of that name exists here.",
)

RS038 = Rule(
    code="RS038",
    layer="resolution",
    severity="warning",
    title="A tool-call parser without --enable-auto-tool-choice is never loaded",
    basis="framework-code",
    rationale=(
        "vLLM's serving code builds the tool-call parser only when --enable-auto-tool-choice is set: "
        "OpenAIServingChat.__init__ loads it under `if self.enable_auto_tools:` (vllm/entrypoints/openai/"
        "serving_chat.py, 0.6-0.11), OpenAIServing._get_tool_parser and ParserManager.get_tool_parser "
        "(vllm/parser/parser_manager.py, 0.16.0-0.33.0) return None without it. The start-up check goes "
        "one way only (--enable-auto-tool-choice without --tool-call-parser is a TypeError), so "
        "--tool-call-parser alone starts a server that never parses tool calls: they come back in the "
        'message text, and the chat server refuses tool_choice "auto" (its message: "auto" tool choice '
        "requires --enable-auto-tool-choice and --tool-call-parser to be set), from 0.14.1 any tool_choice "
        'but "none" (vllm#55754). The releases are those whose message index has the parser\'s load (its '
        "refusal of an unknown name says it belongs to --enable-auto-tool-choice)."
    ),
    fix="add --enable-auto-tool-choice, or drop --tool-call-parser",
    example=_static("vllm serve Qwen/Qwen3-8B --tool-call-parser hermes", "0.33.0"),
    correct=_static("vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice --tool-call-parser hermes", "0.33.0"),
    exceptions="Only vLLM (SGLang loads its parser from --tool-call-parser alone), and only releases whose "
    "message index has the parser's load.",
)

RS036 = Rule(
    code="RS036",
    layer="resolution",
    severity="warning",
    title="The release's own argument check refuses a flag on the GPU --gpu names",
    basis="framework-code",
    rationale=(
        "SGLang's argument checks test the device as well as the flags: --attention-backend trtllm_mha "
        'raised "TRTLLM MHA backend is only supported on Blackwell GPUs (SM100)" on any other GPU in '
        "0.5.1.post3-0.5.9 (ServerArgs._handle_attention_backend_compatibility; an RTX 5090, SM120: "
        "https://github.com/sgl-project/sglang/issues/9140), --kv-cache-dtype nvfp4 needs SM100 or SM120 "
        "(0.5.16 on). The raise-site index records those tests; with --gpu the device probes they call "
        "have a value, because they read the compute capability's major number only "
        "(_check_cuda_device_version in sglang/srt/utils/common.py; get_platform().is_sm100 & co. map to "
        "the same functions, srt/runtime_context.py, 0.5.19 on). A site whose tests then read only given "
        "settings, literals and those probes is evaluated as RS032 evaluates one. Assumed: the GPU is the "
        "one --gpu names, the function runs at every start (an earlier return is not recorded), and a probe "
        "inside its majors has the CUDA runtime it also needs (12.8 for SM10x-SM12x, which those GPUs need "
        "anyway; 12.3 for SM90). When nothing names the release and the newest bundled one accepts the flag "
        "on that GPU, the releases that refuse it are a note."
    ),
    fix="choose a value the GPU supports (the check's message says which GPUs the value needs), or run on "
    "such a GPU",
    example=_static(
        "python -m sglang.launch_server --model-path /m --attention-backend trtllm_mha",
        "0.5.9",
        "--gpu",
        "h100",
    ),
    correct=_static(
        "python -m sglang.launch_server --model-path /m --attention-backend trtllm_mha",
        "0.5.9",
        "--gpu",
        "b200",
    ),
    exceptions="Nothing without --gpu, nothing for vLLM (its device checks read the platform object, not a "
    "probe of this table), nothing when a test reads a local the index did not replace by its value (one "
    "assigned more than once, in a branch or loop, or from a call with arguments), the model, the "
    "environment or a setting the launch does not give, nothing when the resolver ran (RS001).",
)

RS054 = Rule(
    code="RS054",
    layer="resolution",
    severity="warning",
    title="A --tokenizer-mode the release registers no tokenizer for",
    basis="framework-code",
    rationale=(
        "From vLLM 0.12.0 --tokenizer-mode is a free string (ModelConfig.tokenizer_mode: TokenizerMode | "
        "str): argparse takes any word, and loading the tokenizer at start-up looks the word up in the "
        'tokenizer registry, which raises "No tokenizer registered for tokenizer_mode=..." for a name '
        "nothing registered (TokenizerRegistry in vllm/tokenizers/registry.py). What each release takes is "
        "read from its wheel (scripts/gen_vllm_tokenizer_modes.py): the names it registers "
        "(TokenizerRegistry.register calls, the _VLLM_TOKENIZERS table) and the words it translates before "
        "the lookup (auto, slow, custom). deepseek_v32, which the DeepSeek-V3.2 recipe passes, is registered "
        "from 0.13.0: on 0.12.0 the launch fails (vllm#30933). A plugin can register more names, which "
        "nothing in the launch shows: a warning."
    ),
    fix="run a release that registers the mode, or give one the release takes",
    example=_static("vllm serve deepseek-ai/DeepSeek-V3.2 --tokenizer-mode deepseek_v32", "0.12.0"),
    correct=_static("vllm serve deepseek-ai/DeepSeek-V3.2 --tokenizer-mode deepseek_v32", "0.13.0"),
    exceptions="Only vLLM 0.12.0 on (older releases refuse an unlisted word with argparse's own choices, "
    "PA009); nothing when a plugin registers the name; a note when nothing names the release and another "
    "release takes the word.",
)

RS065 = Rule(
    code="RS065",
    layer="resolution",
    severity="info",
    title="A VLLM_* variable stands in for a setting the command line does not give",
    basis="framework-code",
    rationale=(
        "vLLM's front end reads some settings from the command line or, when the flag is not given, from a "
        "variable: `args.api_key or [envs.VLLM_API_KEY]` (vllm/entrypoints/openai/api_server.py 0.8.5.post1-"
        "0.28.0, vllm/entrypoints/serve/middleware/register.py 0.29.0-0.33.0). A variable left in the "
        "server's environment, an `export` in a .bashrc, then sets the server's API key with no flag in the "
        "command, and every /v1 request without `Authorization: Bearer` answers 401 (vllm#22407). Where the "
        "code reads the variable first (`envs.VLLM_API_KEY or args.api_key`, 0.6.6.post1 and 0.7.3) and the "
        "launch gives both, the flag's value is lost: an error. The fallbacks are read from each release's "
        "wheel (scripts/gen_vllm_env_fallbacks.py); no value is shown."
    ),
    fix="unset the variable where the server should not take it, or give the flag, which wins from 0.8.5",
    example=_static("VLLM_API_KEY=k vllm serve /m", "0.33.0"),
    correct=_static("vllm serve /m", "0.33.0"),
    exceptions="Nothing when the flag is given and wins (the variable is then unused); SGLang has no such "
    "fallback read here.",
)

RS059 = Rule(
    code="RS059",
    layer="resolution",
    severity="error",
    title="An --override-generation-config key the release drops",
    basis="framework-code",
    rationale=(
        "vLLM merges --override-generation-config into the model's generation config, then "
        "ModelConfig.get_diff_sampling_param keeps only the keys of its available_params list as the default "
        "sampling parameters of every request (vllm/config.py 0.7.3, vllm/config/model.py 0.11.0 on): any "
        "other key is dropped without a word. presence_penalty and frequency_penalty join the list in 0.31.0 "
        "(vllm#50767: dropped on the releases before), skip_special_tokens in 0.33.0; eos_token_id is in no "
        "release's list (vllm#45591). Each release's list is read from its wheel "
        "(scripts/gen_vllm_engine_overrides.py)."
    ),
    fix="send the key with each request, or run a release that keeps it",
    example=_static("vllm serve /m --override-generation-config.presence_penalty 1.5", "0.30.0"),
    correct=_static("vllm serve /m --override-generation-config.presence_penalty 1.5", "0.31.0"),
    exceptions="A note naming the releases that drop a key when nothing names the release and the analysed "
    "one keeps it; model code that reads the override itself (Llama 4's attention settings in 0.33.0) is not "
    "read.",
)

RS060 = Rule(
    code="RS060",
    layer="resolution",
    severity="error",
    title="A setting the release's engine sets back after parsing",
    basis="framework-code",
    rationale=(
        "Some settings are overwritten by EngineArgs after argparse took them: vLLM's V1 engine 'always uses "
        "chunked prefill', so _set_default_args_v1 (0.8.5.post1-0.10.2), _set_default_args (0.11.0) and "
        "_override_v1_engine_args (0.6.6.post1-0.7.3, with VLLM_USE_V1=1) set enable_chunked_prefill = True "
        "whatever --no-enable-chunked-prefill said (vllm#20914, vllm PR#21645), for every model that is "
        "not a pooling model from 0.9.2 on; 0.11.2 keeps the value given. Each release's overwrites are "
        "read from its wheel (scripts/gen_vllm_engine_overrides.py): an assignment of a literal to "
        "self.<field> in those methods that no enclosing if tests the field on. An overwrite under another "
        "test (the model's runner type) is a warning: the model is not read."
    ),
    fix="run a release that keeps the value, or drop the flag",
    example=_static("vllm serve /m --no-enable-chunked-prefill", "0.8.5.post1"),
    correct=_static("vllm serve /m --no-enable-chunked-prefill", "0.11.2"),
    exceptions="Nothing when VLLM_USE_V1=0 picks the V0 engine (or VLLM_USE_V1 is unset on "
    "0.6.6.post1-0.7.3, where V0 is the default); a note naming the releases that overwrite when nothing "
    "names the release and the analysed one keeps the value.",
)

RS061 = Rule(
    code="RS061",
    layer="resolution",
    severity="info",
    title="Settings the release's V1 oracle sends back to the V0 engine",
    basis="framework-code",
    rationale=(
        "vLLM 0.8.5.post1-0.11.0 decide in EngineArgs._is_v1_supported_oracle, first thing in "
        "create_engine_config, whether the V1 engine can serve the launch: for each feature it does not "
        'support, _raise_or_fallback logs "<feature> is not supported by the V1 Engine. Falling back to V0" '
        'and the V0 engine runs, or raises NotImplementedError("VLLM_USE_V1=1 is not supported with '
        '<feature>") when VLLM_USE_V1=1 is set. 0.8.5.post1 sends --pipeline-parallel-size > 1 without '
        "--distributed-executor-backend ray back to V0 (vllm#20752: DeepSeek-R1 with pp=2, tp=16 hung; the "
        "maintainer's reply adds the Ray backend). The calls and their if-tests are read from each wheel "
        "(scripts/gen_vllm_engine_overrides.py) and evaluated on the launch's settings and the fields' "
        "defaults. V0 then serves the launch: a note, unless VLLM_USE_V1=1 makes it an error."
    ),
    fix="change the settings the test reads so that it no longer holds, or set VLLM_USE_V1=0 to run V0 on "
    "purpose",
    example=_static("vllm serve /m --pipeline-parallel-size 2", "0.8.5.post1"),
    correct=_static(
        "vllm serve /m --pipeline-parallel-size 2 --distributed-executor-backend ray", "0.8.5.post1"
    ),
    exceptions="Only tests that read the launch's settings, literals and comparisons (the model's, the "
    "platform's and the GPU's tests are not evaluated); nothing with VLLM_USE_V1=0; an error with "
    "VLLM_USE_V1=1; a note naming the releases when nothing names the release and the analysed one runs V1.",
)

RS069 = Rule(
    code="RS069",
    layer="resolution",
    severity="warning",
    title="A CUDA graph capture maximum off the release's capture grid",
    basis="framework-code",
    rationale=(
        "VllmConfig._set_cudagraph_sizes builds the CUDA graph capture list from a fixed grid (1, 2, 4, "
        "multiples of 8 below 256, multiples of 16 from 256 in 0.33.0) up to the maximum given with "
        "--max-cudagraph-capture-size (or --compilation-config's max_cudagraph_capture_size), then sets the "
        'maximum to the list\'s last entry, logging only "Truncating max_cudagraph_capture_size to M" '
        "(vllm/config/vllm.py:2631 in 0.33.0). A maximum off the grid is lowered and the batches above the "
        "new one run without CUDA graphs: vllm#54933 (42 with max_num_seqs 6 and six speculative tokens -> "
        "40, the 42-token decode step runs eager), a DGX Spark launch's --max-cudagraph-capture-size "
        "${MAX_NUM_SEQS:-6} with three speculative tokens -> 4, vllm PR#37865 (300 -> 288). The grid is "
        "read by running each release's own method (scripts/gen_vllm_capture_grid.py)."
    ),
    fix="give a maximum the grid holds; with a draft, cover max_num_seqs x (1 + num_speculative_tokens) "
    "tokens",
    example=_static("vllm serve /m --max-cudagraph-capture-size 300", "0.33.0"),
    correct=_static("vllm serve /m --max-cudagraph-capture-size 304", "0.33.0"),
    exceptions="Nothing with CUDA graphs off (--enforce-eager, cudagraph_mode NONE), with a capture list "
    "given, in the interactivity performance mode, or with --max-num-batched-tokens below the maximum (the "
    "limit caps it); a note when the named release's code was not run (the grid of the release that was).",
)

RS070 = Rule(
    code="RS070",
    layer="resolution",
    severity="error",
    title="A value outside the bound the release's configuration class declares",
    basis="framework-code",
    rationale=(
        "vLLM's configuration classes are pydantic dataclasses, and some fields declare numeric bounds: "
        "ParallelConfig.pipeline_parallel_size and tensor_parallel_size are Field(ge=1), "
        "CacheConfig.gpu_memory_utilization Field(gt=0, le=1) in 0.33.0. A flag that EngineArgs passes to "
        "such a field unchanged reaches the bound as written, and pydantic's ValidationError stops the start "
        "in EngineArgs.create_engine_config. Releases without the bound take the value and fail later "
        "(vllm#54667: a pipeline parallel size of 0 selected no executor backend). The bounds and the flags "
        "that reach them are read from each release's source (scripts/gen_vllm_field_bounds.py)."
    ),
    fix="give a value inside the bound",
    example=_static("vllm serve /m --pipeline-parallel-size 0", "0.33.0"),
    correct=_static("vllm serve /m --pipeline-parallel-size 1", "0.33.0"),
    exceptions="Only fields EngineArgs declares with the class's default and passes on as given; a note when "
    "the named release's source was not read (the bound of the release that was).",
)

RS066 = Rule(
    code="RS066",
    layer="resolution",
    severity="error",
    title="An NGRAM trie capacity not above its depth",
    basis="framework-code",
    rationale=(
        "SGLang's NGRAM speculative decoding keeps the recent token suffixes in a trie of "
        "--speculative-ngram-capacity nodes, and the trie's root takes one of them (Trie::Trie: "
        "nodes_.resize(capacity), then root_ = getNode(); jit_kernel/csrc/ngram_corpus/trie.cpp:12-19 in "
        "0.5.10.post1, kernels/jit/csrc/ngram_corpus/trie.cpp:14-21 in 0.5.23). Inserting a suffix of "
        "--speculative-ngram-max-trie-depth tokens needs that many free nodes: with a capacity equal to the "
        "depth Trie::insert calls squeeze() on an empty LRU list, which frees an invalid pointer "
        '("munmap_chunk(): invalid pointer", the scheduler aborts on the first request: sglang#36495, '
        'capacity 4 and depth 4); below the depth squeeze() raises "Insufficient node size to release '
        'required nodes". The server starts; the first request that holds as many tokens as the capacity '
        "stops it (the same constructor in 0.5.17's kernels/jit/csrc/ngram_corpus/trie.cpp). Both flags "
        "exist from 0.5.10.post1 (the depth's default is 18, the capacity's 10000000)."
    ),
    fix="give --speculative-ngram-capacity a value above --speculative-ngram-max-trie-depth (the default "
    "10000000), or lower the depth",
    example=_static(
        "python3 -m sglang.launch_server --model-path m --speculative-algorithm NGRAM "
        "--speculative-ngram-max-trie-depth 4 --speculative-ngram-capacity 4",
        "0.5.23",
    ),
    correct=_static(
        "python3 -m sglang.launch_server --model-path m --speculative-algorithm NGRAM "
        "--speculative-ngram-max-trie-depth 4 --speculative-ngram-capacity 8",
        "0.5.23",
    ),
    exceptions="Only with --speculative-algorithm NGRAM and a release that registers both flags "
    "(0.5.10.post1 on); a warning when nothing names the release.",
)

RS071 = Rule(
    code="RS071",
    layer="resolution",
    severity="error",
    title="Tensor- and pipeline-parallel sizes that do not divide over --nnodes",
    basis="framework-code",
    rationale=(
        "Each node of a multi-node SGLang launch starts its own share of the ranks, computed by integer "
        "division: max(pp_size // nnodes, 1) pipeline stages and tp_size // max(nnodes // pp_size, 1) "
        "tensor-parallel ranks, at offsets given by --node-rank (_calculate_rank_ranges in "
        "srt/entrypoints/engine.py: 0.5.10.post1:1225-1257, 0.5.23:2045-2077; 0.4.2.post4, before pipeline "
        "parallelism, tp_size // nnodes ranks per node at engine.py:367-370). When the sizes do not divide "
        "over the nodes, some ranks of the tp_size x pp_size group are started on no node: --tp 14 over "
        "--nnodes 4 starts 3 ranks on each node, 0-11, and ranks 12-13 never start (sglang#2591's 14 H100s "
        "on 4 nodes). The ranks that start wait for the missing ones in torch.distributed's rendezvous "
        "until its timeout; the server never comes up."
    ),
    fix="make --tp-size (times --pp-size) divide over the nodes: a multiple of the nodes each pipeline stage "
    "spans, with tp-size / nnodes GPUs on each node",
    example=_static(
        "python3 -m sglang.launch_server --model-path m --tp-size 14 --nnodes 4 --node-rank 0 "
        "--dist-init-addr 10.0.0.1:5000",
        "0.5.23",
    ),
    correct=_static(
        "python3 -m sglang.launch_server --model-path m --tp-size 16 --nnodes 4 --node-rank 0 "
        "--dist-init-addr 10.0.0.1:5000",
        "0.5.23",
    ),
    exceptions="Only with one data parallel replica (--dp-size 1): the data parallel controller places its "
    "ranks its own way. A warning when nothing names the release.",
)

RS067 = Rule(
    code="RS067",
    layer="resolution",
    severity="error",
    title="The router's launcher started with several DP replicas over several nodes",
    basis="framework-code",
    rationale=(
        "`python -m sglang_router.launch_server` runs the --dp-size replicas itself, all on the node it runs "
        "on: each is a copy of the server arguments with base_gpu_id = replica x tp-size and dp_size 1 "
        "(sglang-router 0.1.4 sglang_router/launch_server.py:84-85, 0.3.2 :92-93), then the router in front "
        "of them. Multi-node flags are copied too: with --nnodes 2 every replica of a node is the same node "
        "rank of one rendezvous at one --dist-init-addr, so the replicas cannot form separate servers, and "
        "dp-size x tp-size GPUs are asked of one node (sglang#6370: --tp 8 --dp 2 over two nodes; the "
        'maintainers: "sglang_router.launch_server with dp is only restricted to a single node").'
    ),
    fix="start each replica with `python -m sglang.launch_server` (multi-node flags per replica) and "
    "`python -m sglang_router.launch_router --worker-urls ...` in front; or one node with dp-size x tp-size "
    "GPUs and no --nnodes",
    example=_static(
        "python -m sglang_router.launch_server --model-path m --tp 8 --dp 2 --nnodes 2 --node-rank 0 "
        "--dist-init-addr 10.0.0.1:5000",
        "0.5.23",
    ),
    correct=_static("python -m sglang_router.launch_server --model-path m --tp 4 --dp 2", "0.5.23"),
    exceptions="Only for the router's launcher (`sglang_router.launch_server`) with --dp-size and --nnodes "
    "above 1; a warning when nothing names the release.",
)

RS068 = Rule(
    code="RS068",
    layer="resolution",
    severity="warning",
    title="A MoE all-to-all backend the launch's parallel layout never uses",
    basis="framework-code",
    rationale=(
        "vLLM sends a mixture-of-experts layer's tokens through the all-to-all backend of --all2all-backend "
        "(VLLM_ALL2ALL_BACKEND in the releases that read it) only when FusedMoEParallelConfig."
        "use_all2all_kernels holds: expert parallelism (--enable-expert-parallel, use_ep) and more than one "
        "data-parallel (or prefill-context-parallel) rank (vllm 0.33.0 model_executor/layers/fused_moe/"
        "config.py:1035; ParallelConfig.use_sequence_parallel_moe needs data parallelism too). Without "
        "expert parallelism the experts are split by tensor parallelism and the backend is never used: "
        "vllm-project/vime PR#186 set deepep_high_throughput without expert parallelism, and the FP8 "
        "experts of Qwen3-30B-A3B split over TP 8 (768 / 8 = 96 columns) were refused by their 128-wide "
        "quantization blocks. The gate is read from each release's wheel (scripts/gen_vllm_all2all.py)."
    ),
    fix="add --enable-expert-parallel with --data-parallel-size above 1, or remove the backend",
    example=_static(
        "vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 8 --all2all-backend deepep_high_throughput",
        "0.33.0",
    ),
    correct=_static(
        "vllm serve Qwen/Qwen3-30B-A3B-FP8 --data-parallel-size 8 --enable-expert-parallel "
        "--all2all-backend deepep_high_throughput",
        "0.33.0",
    ),
    exceptions="A warning: the launch runs, without the backend. Nothing for a release whose wheel was not "
    "read, or whose gate has another form; a size the parser did not read as a number is not judged.",
)

RS072 = Rule(
    code="RS072",
    layer="resolution",
    severity="error",
    title="A MoE all-to-all backend the release has removed and replaces",
    basis="framework-code",
    rationale=(
        "vLLM removed the pplx and naive all-to-all backends (vllm PR#33724; llm-d PR#855) but kept them "
        "among --all2all-backend's choices: ParallelConfig.__post_init__ replaces them with "
        "allgather_reducescatter and logs \"The '<name>' all2all backend has been removed. Falling back to "
        "'allgather_reducescatter'.\" (vllm 0.33.0 config/parallel.py:537). The launch starts with another "
        "backend than the one written. The replaced names, the value taken instead and the line are read "
        "from each release's wheel (scripts/gen_vllm_all2all.py)."
    ),
    fix="choose a backend the release has, or remove the setting",
    example=_static(
        "vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 2 --enable-expert-parallel "
        "--all2all-backend pplx",
        "0.33.0",
    ),
    correct=_static(
        "vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 2 --enable-expert-parallel "
        "--all2all-backend allgather_reducescatter",
        "0.33.0",
    ),
    exceptions="Nothing for a release whose wheel was not read or that does not replace the backend; a "
    "warning when nothing names the release.",
)

RS074 = Rule(
    code="RS074",
    layer="resolution",
    severity="warning",
    title="A Mamba state pool that admits fewer requests than --max-running-requests",
    basis="assumed",
    rationale=(
        "A hybrid model (Mamba or linear-attention layers: Qwen3-Next, Qwen3.5/3.6, Nemotron-H) keeps each "
        "running request's recurrent state in slots of the pool --max-mamba-cache-size sizes, and SGLang "
        "caps "
        "the running requests at max_mamba_cache_size // ratio, the slots one request holds "
        "(_calculate_mamba_ratio; 0.5.23 srt/mem_cache/kv_cache_configurator.py:3062, the cap at :3137): 1 "
        "without the radix cache, else 3 plus 2 ping-pong slots for --mamba-radix-cache-strategy "
        "extra_buffer with the overlap scheduler (1 without it, 1 for extra_buffer_lazy), 2 + 1 under "
        "SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK. The constants are read from each release's wheel, 0.5.10.post1-"
        "0.5.23 (scripts/gen_sglang_mamba_slots.py). A pool sized for fewer slots than the strategy holds "
        "silently lowers --max-running-requests (0.5.17 on log one line): MiaAI-Lab/Qwen3.8-27B-SGLang-"
        "DGX-Spark#7 sized 64 slots for 16 requests at 4 each, and extra_buffer's 5 capped them to 12."
    ),
    fix="give --max-mamba-cache-size the requests times the slots per request, or a strategy holding fewer "
    "slots (extra_buffer_lazy), or the --max-running-requests the pool admits",
    example=_static(
        "python -m sglang.launch_server --model-path m --max-running-requests 16 --max-mamba-cache-size 64 "
        "--mamba-radix-cache-strategy extra_buffer",
        "0.5.23",
    ),
    correct=_static(
        "python -m sglang.launch_server --model-path m --max-running-requests 16 --max-mamba-cache-size 64 "
        "--mamba-radix-cache-strategy extra_buffer_lazy",
        "0.5.23",
    ),
    exceptions="Only when the launch writes both sizes and the strategy (or turns the radix cache off): "
    "auto resolves by the model; not with DP attention nor on a PD decode server; the model is assumed "
    "hybrid (only hybrid models read --max-mamba-cache-size). A release whose wheel was not read says "
    "nothing.",
)

RS073 = Rule(
    code="RS073",
    layer="resolution",
    severity="error",
    title="A hybrid model served in another dtype than SGLang's Mamba conv state",
    basis="framework-code",
    rationale=(
        "SGLang allocates the conv state of a hybrid model's Mamba or linear-attention layers in "
        "SGLANG_MAMBA_CONV_DTYPE, bfloat16 when unset, whatever --dtype says (mamba2_state_dtype, "
        "srt/configs/mamba_utils.py:68 in 0.5.10.post1 and 0.5.23), and writes the model's activations into "
        "it unconverted (srt/layers/attention/linear/gdn_backend.py:406 in 0.5.10.post1, :1066 in 0.5.23). "
        'Served in float16 the first prefill stops: "Index put requires the source and destination dtypes '
        'match, got BFloat16 for the destination and Half for the source" (sglang#31719, Qwen3.6-27B; '
        "sglang PR#20217, Qwen3.5-0.8B). The report's workaround serves: SGLANG_MAMBA_CONV_DTYPE=float16 "
        "with --dtype float16."
    ),
    fix="set SGLANG_MAMBA_CONV_DTYPE to the serving dtype, or serve in the conv state's dtype",
    example=_static(
        "python -m sglang.launch_server --model-path m --dtype float16 --mamba-ssm-dtype float16", "0.5.23"
    ),
    correct=_static(
        "SGLANG_MAMBA_CONV_DTYPE=float16 python -m sglang.launch_server --model-path m --dtype float16 "
        "--mamba-ssm-dtype float16",
        "0.5.23",
    ),
    exceptions="Only for releases that read SGLANG_MAMBA_CONV_DTYPE (0.5.9 on). The model is hybrid by "
    "config.json, or assumed so when the launch writes a setting only hybrid models read (a warning then); "
    "with --dtype auto the dtype is config.json's.",
)

RS075 = Rule(
    code="RS075",
    layer="resolution",
    severity="error",
    title="A Mamba cache mode the release drops without prefix caching",
    basis="framework-code",
    rationale=(
        "vLLM 0.16.0-0.32.0 pass --mamba-cache-mode on to CacheConfig, and MambaModelConfig."
        "verify_and_update_config reads it only with prefix caching: when prefix caching is disabled it sets "
        "the mode to 'none' with one warning, \"Mamba cache mode is set to 'none' when prefix caching is "
        'disabled" (vllm 0.28.0 model_executor/models/config.py:632), while the API server\'s "non-default '
        "args\" line still shows the mode written (syv-ai/qwen38-27b-rtx3090#25: arms meant to keep 'align' "
        "with the prefix cache off ran in mode 'none'). On a model without Mamba layers the mode is never "
        "read either. The assignment, its line and the warning are read from each release's wheel "
        "(scripts/gen_vllm_mamba_cache.py)."
    ),
    fix="enable prefix caching (--enable-prefix-caching), or remove --mamba-cache-mode",
    example=_static(
        "vllm serve Qwen/Qwen3.6-27B --no-enable-prefix-caching --mamba-cache-mode align", "0.28.0"
    ),
    correct=_static("vllm serve Qwen/Qwen3.6-27B --enable-prefix-caching --mamba-cache-mode align", "0.28.0"),
    exceptions="Only when the launch itself disables prefix caching (its default depends on the model "
    "class); nothing for a release whose wheel was not read, or where the flag no longer reaches the cache "
    "(0.33.0: PA016); a warning when nothing names the release.",
)

RS076 = Rule(
    code="RS076",
    layer="resolution",
    severity="warning",
    title="A Mamba cache mode whose prefix-caching checks refuse another setting of the launch",
    basis="framework-code",
    rationale=(
        "With prefix caching, vLLM's MambaModelConfig.verify_and_update_config asserts what the Mamba cache "
        "mode needs: chunked prefill (\"Chunked prefill is required for mamba cache mode 'align'.\", vllm "
        "0.16.0-0.31.0 under align mode, 0.32.0 on under any mode) and, in 0.16.0, no speculative decoding "
        '("Mamba cache mode '
        "'align' is currently not compatible with speculative decoding.\"). The start stops with an "
        "AssertionError on a hybrid model, the only kind whose configuration goes through that method, which "
        "a launch writing --mamba-cache-mode is taken to serve. The asserts, the mode they are read under, "
        "their lines and messages are read from each release's wheel (scripts/gen_vllm_mamba_cache.py)."
    ),
    fix="keep chunked prefill on with Mamba prefix caching, or disable prefix caching",
    example=_static(
        "vllm serve Qwen/Qwen3.6-27B --enable-prefix-caching --mamba-cache-mode align "
        "--no-enable-chunked-prefill",
        "0.28.0",
    ),
    correct=_static("vllm serve Qwen/Qwen3.6-27B --enable-prefix-caching --mamba-cache-mode align", "0.28.0"),
    exceptions="A warning: the model class is not read, and only a hybrid model stops. Only settings the "
    "launch writes (prefix caching, chunked prefill and the mode by default depend on the model class); "
    "nothing for a release whose wheel was not read.",
)

RS077 = Rule(
    code="RS077",
    layer="resolution",
    severity="warning",
    title="A Qwen3-VL reranker served without a reranker chat template",
    basis="assumed",
    rationale=(
        "SGLang's /v1/rerank sends a model path naming Qwen3-VL (_is_qwen3_vl_model) down its multimodal "
        "decoder-only reranker path, which renders the served chat template itself with only query and "
        "document (_detect_rerank_backend and _render_vl_jinja_template, srt/entrypoints/openai/"
        "serving_rerank.py:88 and :168 in 0.5.23, :86 and :165 in 0.5.10.post1). Without --chat-template the "
        "template is the model's own, which iterates messages, so every rerank request answers 400 "
        "\"'messages' is undefined\" (QwenLM/Qwen3-VL-Embedding#84, Qwen3-VL-Reranker-8B)."
    ),
    fix="add --chat-template naming a Qwen3-VL yes/no reranker template (with the vision placeholders)",
    example=_static("python -m sglang.launch_server --model-path Qwen/Qwen3-VL-Reranker-8B", "0.5.23"),
    correct=_static(
        "python -m sglang.launch_server --model-path Qwen/Qwen3-VL-Reranker-8B "
        "--chat-template /templates/qwen3_vl_reranker.jinja",
        "0.5.23",
    ),
    exceptions="Only when the model path names Qwen3-VL and says it reranks (the reranker is assumed from "
    "the name: a chat or embedding Qwen3-VL model is not served through /v1/rerank), for 0.5.10.post1-0.5.23 "
    "(the two wheels read and the releases between them).",
)


RS078 = Rule(
    code="RS078",
    layer="resolution",
    severity="warning",
    title="Expert-distribution metrics with a multi-step EAGLE draft fail the draft CUDA-graph capture",
    basis="assumed",
    rationale=(
        "With --enable-expert-distribution-metrics every ModelRunner.forward ends with the expert recorder's "
        "pass boundary, which is not capture-aware, and with the metrics on rank 0 reads the counts back to "
        "the host (_on_forward_pass_end and _append_utilization_rate's .item(), "
        "srt/eplb/expert_distribution.py:200 and :767 in 0.5.17, :195 and :723 in 0.5.10.post1). EAGLE's "
        "draft_forward runs a ModelRunner.forward for each draft step but the last inside the draft model's "
        "CUDA-graph capture (srt/speculative/eagle_worker_v2.py:651 in 0.5.17, eagle_worker.py:680 in "
        '0.5.10.post1), so with --speculative-num-steps 2 or more the capture fails ("operation not '
        'permitted when stream is capturing", "Capture cuda graph failed") and the server crash-loops at '
        "start-up; one step runs no forward there (sglang#32105 on 0.5.15.post1, fix proposed in sglang "
        "PR#32106)."
    ),
    fix="drop --enable-expert-distribution-metrics, use --speculative-num-steps 1, or --disable-cuda-graph",
    example=_static(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 "
        "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 "
        "--speculative-num-draft-tokens 4 --enable-expert-distribution-metrics",
        "0.5.15.post1",
    ),
    correct=_static(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 "
        "--speculative-algorithm EAGLE --speculative-num-steps 1 --speculative-eagle-topk 1 "
        "--speculative-num-draft-tokens 2 --enable-expert-distribution-metrics",
        "0.5.15.post1",
    ),
    exceptions="A warning: the metrics count a MoE model's experts, which the flag implies but the launch "
    "does not show. Only when the launch writes --speculative-num-steps (2 or more) with EAGLE, EAGLE3, "
    "NEXTN or STANDALONE and does not disable CUDA graphs, for 0.5.10.post1-0.5.17 (the two wheels read and "
    "the releases between them; 0.4.6.post5's draft loop called the bare model, without the boundary).",
)

RS079 = Rule(
    code="RS079",
    layer="resolution",
    severity="warning",
    title="A --tool-call-parser or --reasoning-parser name the vLLM release registers no parser for",
    basis="framework-code",
    rationale=(
        "Neither flag has argparse choices (--reasoning-parser from 0.11.2): --tool-call-parser's help lists "
        'the registered names "or name registered in --tool-parser-plugin", and the serve command checks the '
        "words against the parser registries before the engine starts (validate_api_server_args): KeyError "
        "'invalid tool call parser: NAME (chose from { ... })' when --enable-auto-tool-choice is set, and "
        "'invalid reasoning parser: NAME ...'. What each release registers is read from its wheel "
        "(scripts/gen_vllm_parsers.py: the ToolParserManager/ReasoningParserManager registrations and the "
        "lazy registration tables). A recipe written for a newer release meets an older image this way: "
        "deepseek_v4, registered from 0.20.2, on vllm-ascend's 0.13.0 image (vllm-ascend#8875, #8997)."
    ),
    fix="run a release that registers the parser, or give a name the release registers",
    example=_static(
        "vllm serve deepseek-ai/DeepSeek-V4-Flash --enable-auto-tool-choice --tool-call-parser deepseek_v4",
        "0.13.0",
    ),
    correct=_static(
        "vllm serve deepseek-ai/DeepSeek-V4-Flash --enable-auto-tool-choice --tool-call-parser deepseek_v4",
        "0.20.2",
    ),
    exceptions="A warning: a platform or general plugin may register the name, which the launch does not "
    "show. Nothing when the launch's --tool-parser-plugin/--reasoning-parser-plugin file may register it, "
    "for a tool-call parser without --enable-auto-tool-choice (never checked: RS038), for a release whose "
    "argparse choices check the word (PA009) or whose wheel was not read; a note when nothing names the "
    "release and another release registers every name.",
)

RS080 = Rule(
    code="RS080",
    layer="resolution",
    severity="warning",
    title="A speculative algorithm whose draft input the release's PD decode server never builds",
    basis="framework-code",
    rationale=(
        "A --disaggregation-mode decode server receives each request already prefilled, so its first "
        "decode step runs before any local forward could set up the draft state: the batch's draft input "
        "comes from SpeculativeAlgorithm.build_disagg_draft_input (srt/speculative/spec_info.py, called from "
        "srt/disaggregation/decode_schedule_batch_mixin.py), which returns None for an algorithm it has no "
        "branch for, and spec_prepare_for_decode (srt/speculative/spec_utils.py) dereferences "
        "batch.spec_info for the DFLASH family unguarded: the scheduler dies at the first transferred "
        "request with \"AttributeError: 'NoneType' object has no attribute 'prepare_for_decode'\" "
        "(sglang#36140 on a 0.5.16-based build, sglang PR#31513's comment on plain 0.5.16). What each "
        "release builds is read from its wheel (scripts/gen_sglang_disagg_spec.py): DFLASH has no branch in "
        "0.5.15.post1-0.5.19, DSPARK none in 0.5.16; 0.5.20 builds both. Where the decode batch falls "
        "back to the non-speculative relay instead, the draft never runs and no error is raised (sglang "
        "PR#34285)."
    ),
    fix="run a release that builds the algorithm's draft input (DSPARK: 0.5.17, DFLASH: 0.5.20), or drop "
    "--speculative-algorithm from the prefill and decode servers",
    example=_static(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 4 "
        "--disaggregation-mode decode --speculative-algorithm DSPARK",
        "0.5.16",
    ),
    correct=_static(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 4 "
        "--disaggregation-mode decode --speculative-algorithm DSPARK",
        "0.5.17",
    ),
    exceptions="A warning: whether the decode step raises or the batch falls back to plain decoding "
    "depends on the path the batch takes; either way the algorithm written does not draft. Only for a "
    "release whose wheel was read and whose decode preparation dereferences the draft input unguarded "
    "(0.5.13.post1-0.5.14 build EAGLE only but do not dereference it for DFLASH). Without a release named: "
    "a warning resting on the release the analysis assumes when it is one of them, else a note.",
)

RS081 = Rule(
    code="RS081",
    layer="resolution",
    severity="warning",
    title="DeepEP's low-latency mode on a GPU the release enables no DeepGEMM for",
    basis="framework-code",
    rationale=(
        "With --moe-a2a-backend deepep each MoE layer is a DeepEPMoE (srt/layers/moe/ep_moe/layer.py), whose "
        'constructor asserts deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM ("DeepEP {mode} mode requires '
        'deep_gemm") when --deepep-mode enables low latency (auto, the default, or low_latency) on CUDA; '
        "_compute_enable_deep_gemm (srt/layers/deep_gemm_wrapper/configurer.py) turns DeepGEMM off below SM "
        "90, so on an Ampere or Ada GPU the server dies while the model is built (sglang#12320, an RTX 6000 "
        "Ada). What each release asserts is read from its wheel (scripts/gen_sglang_deepep_deepgemm.py): any "
        "MoE layer in 0.5.1.post3-0.5.11, a quantized one only from 0.5.12.post1."
    ),
    fix="run on a Hopper or newer GPU, drop --moe-a2a-backend deepep, or use --deepep-mode normal",
    example=_static(
        "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp-size 2 --ep-size 2 "
        "--moe-a2a-backend deepep",
        "0.5.10.post1",
        "--gpu",
        "a100-80g",
    ),
    correct=_static(
        "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp-size 2 --ep-size 2 "
        "--moe-a2a-backend deepep",
        "0.5.10.post1",
        "--gpu",
        "h100",
    ),
    exceptions="A warning: the GPU is the one --gpu names, not the node's. Only with --gpu naming an NVIDIA "
    "GPU, --deepep-mode auto or low_latency, no --moe-runner-backend other than auto and no ModelOpt FP4 "
    "quantization (the flashinfer_cutedsl path skips the assertion), for a release whose wheel was read. A "
    "note where the release asserts for quantized checkpoints only and the launch writes no --quantization, "
    "and when nothing names the release and only other releases read would assert.",
)

RS082 = Rule(
    code="RS082",
    layer="resolution",
    severity="warning",
    title="SGLang's TRTLLM MLA prefill on a Blackwell GPU FlashInfer's TRT-LLM-gen runner refuses",
    basis="framework-code",
    rationale=(
        "SGLang's argument check accepts --attention-backend trtllm_mla on every Blackwell GPU ('TRTLLM MLA "
        "backend is only supported on Blackwell GPUs (SM100/SM12x)'), but the backend's prefill calls "
        "flashinfer.prefill.trtllm_ragged_attention_deepseek, whose TllmGenFmhaRunner accepts SM100/SM103 "
        "only (flashinfer-python 0.6.7.post3, include/flashinfer/trtllm/fmha/fmhaRunner.cuh:30; SM107 too in "
        "0.7.2): on an SM120 RTX PRO 6000 or RTX 50xx the first prefill, the warm-up request, dies with "
        "'Unsupported architecture' (sglang#24633, sglang#17880). What each release calls and pins, and what "
        "each pinned FlashInfer accepts, is read from the wheels (scripts/gen_sglang_trtllm_mla_prefill.py)."
    ),
    fix="prefill with another backend (--prefill-attention-backend flashinfer or triton) or drop trtllm_mla",
    example=_static(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2-Lite --trust-remote-code "
        "--attention-backend trtllm_mla",
        "0.5.10.post1",
        "--gpu",
        "rtx-pro-6000",
    ),
    correct=_static(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2-Lite --trust-remote-code "
        "--attention-backend trtllm_mla",
        "0.5.10.post1",
        "--gpu",
        "b200",
    ),
    exceptions="A warning: the GPU is the one --gpu names, and the FlashInfer installed is assumed to be the "
    "one the release pins. Only for the prefill backend the launch writes (--prefill-attention-backend, else "
    "--attention-backend), an NVIDIA GPU the release's own argument check accepts (one it refuses is "
    "RS036's), and a release whose wheel and pinned FlashInfer were read. Without a release named it rests "
    "on the release the analysis assumes, and says so.",
)
