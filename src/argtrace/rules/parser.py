"""Parser-layer rules (PA): what the framework's argument parser makes of the server's argv."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_SG = "python3 -m sglang.launch_server --model-path /m"
_SG10 = ("--framework-version", "0.5.10.post1")
_SG23 = ("--framework-version", "0.5.23")
_VL = ("--framework-version", "0.33.0")


def _c(command: str, version: tuple[str, ...] = _SG10) -> Example:
    return Example(argv=("check", *version, "-c", command))


PA_UNRECOGNIZED = Rule(
    code="PA001",
    layer="parser",
    severity="error",
    title="Unrecognized argument",
    rationale="SGLang and vLLM parse with parse_args: one word the parser does not know (a typo, a "
    "stray value) "
    "makes the server exit with status 2 before anything loads.",
    fix="use the flag the message suggests, or remove the word",
    example=_c(f"{_SG} --mem-fraction-statc 0.8"),
    correct=_c(f"{_SG} --mem-fraction-static 0.8"),
)

PA_OTHER_FRAMEWORK = Rule(
    code="PA002",
    layer="parser",
    severity="error",
    title="Flag of the other framework",
    rationale="SGLang and vLLM name the same settings differently (--tp-size vs "
    "--tensor-parallel-size); a flag "
    "copied from the other framework's docs is rejected.",
    fix="use this framework's spelling of the setting",
    example=_c("vllm serve /m --tp-size 2", _VL),
    correct=_c("vllm serve /m --tensor-parallel-size 2", _VL),
)

PA_REMOVED = Rule(
    code="PA003",
    layer="parser",
    severity="error",
    title="Flag removed in this release",
    rationale="An old launch script on a new release: a flag that older releases accepted no longer "
    "exists, and "
    "the server refuses to start.",
    fix="use the release's replacement flag (named in the message), or pin the older release",
    example=_c(f"{_SG} --mamba-scheduler-strategy extra_buffer", _SG23),
    correct=_c(f"{_SG} --mamba-radix-cache-strategy extra_buffer", _SG23),
    exceptions="A warning when the release is assumed (no --framework-version, and none installed for the "
    "server's interpreter where it runs): the node may run an older release that still accepts the flag.",
)

PA_NOT_YET = Rule(
    code="PA004",
    layer="parser",
    severity="error",
    title="Flag not yet in this release",
    rationale="A new launch script on an old release: the flag was added later, so this release rejects it.",
    fix="upgrade the framework, or use the older spelling named in the message",
    example=_c(f"{_SG} --mamba-radix-cache-strategy extra_buffer", _SG10),
    correct=_c(f"{_SG} --mamba-scheduler-strategy extra_buffer", _SG10),
)

PA_DEPRECATED = Rule(
    code="PA005",
    layer="parser",
    severity="info",
    title="Deprecated flag",
    rationale="A deprecated flag still works today, often as an alias that writes another setting, and is "
    "removed in a later release. The launch is correct on the release analysed, so it is a note; a "
    "deprecated flag that no longer takes effect is PA016, and one a later release refuses is PA003 there.",
    fix="switch to the current spelling named in the message",
    example=_c(f"{_SG} --stream-output"),
    correct=_c(f"{_SG} --incremental-streaming-output"),
)

PA_DUPLICATE = Rule(
    code="PA006",
    layer="parser",
    severity="warning",
    title="Flag given more than once",
    rationale="argparse keeps the last occurrence without a word: the earlier value is silently overridden. "
    "When the last one comes from \"$@\", the caller's arguments override the script's own choice.",
    fix="give each flag once; let the caller override through a variable with a default instead",
    example=_c(f"{_SG} --port 30000 --port 30001"),
    correct=_c(f"{_SG} --port 30001"),
)

PA_ABBREVIATION = Rule(
    code="PA007",
    layer="parser",
    severity="warning",
    title="Abbreviated flag accepted silently",
    rationale="argparse accepts any unambiguous prefix of a long flag (allow_abbrev), so a misspelt or "
    "shortened flag works today and breaks as soon as a release adds another flag with the same prefix. "
    "Severity: info while the prefix is unique in every bundled release of the framework, warning when a "
    "known release makes it ambiguous.",
    fix="write the flag in full",
    example=_c(f"{_SG} --chunked-prefill 4096"),
    correct=_c(f"{_SG} --chunked-prefill-size 4096"),
)

PA_AMBIGUOUS = Rule(
    code="PA008",
    layer="parser",
    severity="error",
    title="Ambiguous abbreviation",
    rationale="A prefix that matches several flags makes argparse exit with status 2.",
    fix="write the flag in full",
    example=_c(f"{_SG} --enable-dp 1"),
    correct=_c(f"{_SG} --enable-dp-attention"),
)

PA_INVALID_CHOICE = Rule(
    code="PA009",
    layer="parser",
    severity="error",
    title="Invalid choice",
    rationale="The value is not one of the flag's choices in this release: argparse exits with status 2.",
    fix="use one of the choices listed in the message",
    example=_c(f"{_SG} --mamba-scheduler-strategy extra-buffer"),
    correct=_c(f"{_SG} --mamba-scheduler-strategy extra_buffer"),
)

PA_INVALID_VALUE = Rule(
    code="PA010",
    layer="parser",
    severity="error",
    title="Value of the wrong type",
    rationale="The flag's converter rejects the value (a port that is not a number, 0.8.5 for a "
    "float): argparse "
    "exits with status 2.",
    fix="give a value of the flag's type",
    example=_c(f"{_SG} --port 30000x"),
    correct=_c(f"{_SG} --port 30000"),
)

PA_INVALID_JSON = Rule(
    code="PA011",
    layer="parser",
    severity="error",
    title="Invalid JSON value",
    rationale="JSON-valued flags (--json-model-override-args, --speculative-config, --compilation-config...) "
    "are decoded by the parser; shell quoting often eats the double quotes.",
    fix="single-quote the JSON so that the shell keeps its double quotes",
    # Example argv words go through str.format_map in the rule harness: braces are doubled.
    example=_c(_SG + " --json-model-override-args {{rope_scaling:1}}"),
    correct=_c(_SG + " --json-model-override-args '{{\"rope_scaling\": 1}}'"),
)

PA_MISSING_VALUE = Rule(
    code="PA012",
    layer="parser",
    severity="error",
    title="Flag without its value",
    rationale="A flag that takes a value is followed by another flag (or nothing), typically because "
    "a variable "
    'expanded to nothing: argparse exits with status 2 ("expected one argument").',
    fix="make sure the value is there (quote variables, give defaults: ${PORT:-30000})",
    example=_c(f"{_SG} --port --host 0.0.0.0"),
    correct=_c(f"{_SG} --port 30000 --host 0.0.0.0"),
)

PA_UNKNOWN_VALUE = Rule(
    code="PA013",
    layer="parser",
    severity="info",
    title="Value not known statically",
    rationale="A command substitution or a runtime branch produces the word, so what the parser gets "
    "cannot be "
    "known without running the script.",
    fix="nothing to fix if intended; pass the value explicitly to check it",
    example=_c(f"{_SG} --port $(shuf -i 30000-31000 -n 1)"),
    correct=_c(f"{_SG} --port 30000"),
)

PA_UNDERSCORE = Rule(
    code="PA014",
    layer="parser",
    severity="error",
    title="Underscores in a flag the framework does not normalise",
    rationale="vLLM turns --max_model_len into --max-model-len; SGLang does not, and rejects the flag.",
    fix="write the flag with dashes",
    example=_c("python3 -m sglang.launch_server --model_path /m"),
    correct=_c("python3 -m sglang.launch_server --model-path /m"),
)

PA_SINGLE_DASH = Rule(
    code="PA015",
    layer="parser",
    severity="error",
    title="Long option with a single hyphen",
    rationale="-model-path is not --model-path: argparse rejects it, or worse, reads it as a short "
    "option with "
    "the rest of the word as its value (-quantization is -q uantization).",
    fix="write long options with two hyphens",
    example=_c("python3 -m sglang.launch_server -model-path /m"),
    correct=_c("python3 -m sglang.launch_server --model-path /m"),
)

PA_IGNORED = Rule(
    code="PA016",
    layer="parser",
    severity="error",
    title="Flag accepted but ignored",
    rationale="Some retired flags are still accepted so that old scripts start, but store nothing: the value "
    "the user asked for never arrives. In some releases the retired flag's action refuses it outright "
    "instead (an error message, or SGLang 0.5.1-0.5.3's DeprecatedAction raising ValueError): the launch "
    "stops.",
    fix="use the replacement flag named in the message, or remove the flag",
    example=_c(f"{_SG} --enable-piecewise-cuda-graph"),
    correct=_c(f"{_SG} --enforce-piecewise-cuda-graph"),
)

PA_EXITS = Rule(
    code="PA017",
    layer="parser",
    severity="error",
    title="Help or version flag in a launch",
    rationale="--help (or an abbreviation of it) makes the server print help and exit instead of starting.",
    fix="remove the flag",
    example=_c(f"{_SG} --help"),
    correct=_c(_SG),
)

PA_CONFIG_FILE = Rule(
    code="PA018",
    layer="parser",
    severity="error",
    title="Config file problem",
    rationale="--config FILE must be one YAML file holding a mapping; otherwise the launcher stops before "
    "parsing, and a file argtrace cannot read here is a file whose settings it cannot check.",
    fix="pass exactly one existing .yaml/.yml file with a mapping at the top",
    example=_c(f"{_SG} --config server.json"),
    correct=_c(_SG),
)

PA_CONFIG_DROPPED = Rule(
    code="PA019",
    layer="parser",
    severity="warning",
    title="Config file value dropped",
    rationale="vLLM turns `key: false` into --no-key only when the parser doing the rewrite knows "
    "that flag; for "
    "`vllm serve` that is the top-level parser, so a false boolean in the config file is silently dropped.",
    fix="turn the flag off on the command line (--no-KEY) instead of in the config file",
    example=Example(
        argv=("check", *_VL, "-c", "vllm serve /m --config cfg.yaml"),
        files={"cfg.yaml": "enable-prefix-caching: false\n"},
    ),
    correct=Example(
        argv=("check", *_VL, "-c", "vllm serve /m --config cfg.yaml --no-enable-prefix-caching"),
        files={"cfg.yaml": "max-num-seqs: 8\n"},
    ),
)

PA_CONFIG_MAPPING = Rule(
    code="PA052",
    layer="parser",
    severity="info",
    title="A YAML mapping under a JSON flag that older vLLM releases pass as its Python repr",
    basis="framework-code",
    rationale="vLLM's load_config_file turns each `key: value` of a --config file into argv words. From "
    "0.16.0 a mapping becomes json.dumps(value); 0.6.6.post1-0.15.1 end in str(value), the mapping's "
    "Python repr ({'architectures': [...]}), which a flag read with json.loads refuses: \"Value {...} "
    "cannot be converted to <function loads>\" (vllm PR#33196; each release's code read by "
    "scripts/gen_vllm_config_file.py). The analysed release takes the file; the note names the releases "
    "that do not. On one of those the refusal itself is PA011.",
    fix="write the value as a JSON string in single quotes (`hf_overrides: '{\"architectures\": [...]}'`), "
    "which every release passes as written",
    example=Example(
        argv=("check", *_VL, "-c", "vllm serve /m --config cfg.yaml"),
        files={"cfg.yaml": "hf_overrides:\n  architectures: [Qwen3ForCausalLM]\n"},
    ),
    correct=Example(
        argv=("check", *_VL, "-c", "vllm serve /m --config cfg.yaml"),
        files={"cfg.yaml": 'hf_overrides: \'{"architectures": ["Qwen3ForCausalLM"]}\'\n'},
    ),
    exceptions="Only for a flag the analysed release reads as JSON, and only when some bundled release "
    "passes the mapping as its repr.",
)

PA_REQUIRED = Rule(
    code="PA020",
    layer="parser",
    severity="error",
    title="Required flag missing",
    rationale="The parser requires the flag (SGLang's --model-path) or positional (vLLM 0.6's `vllm serve` "
    "model_tag, which `--model X` does not give): without it the server exits with status 2, and argparse's "
    'own "the following arguments are required" (PA001) is this finding\'s consequence. When an unquoted '
    "`$OPTS` of the caller's environment, not set here, vanished among the words, the server's environment "
    "may set it with the flag: a warning resting on that assumption, naming the variable.",
    fix="add the flag",
    example=_c("python3 -m sglang.launch_server --port 30000"),
    correct=_c(f"{_SG} --port 30000"),
)

PA_JSON_OVERRIDE = Rule(
    code="PA021",
    layer="parser",
    severity="warning",
    title="JSON value silently replaced",
    rationale="vLLM collects --flag.key words into a new JSON value appended after everything else, which "
    "replaces a whole JSON value given earlier; a key repeated in one JSON object also keeps only "
    "its last value.",
    fix="put all keys of a JSON flag in one place",
    example=_c(
        "vllm serve /m --compilation-config '{{\"mode\": 3}}' --compilation-config.cudagraph_mode FULL", _VL
    ),
    correct=_c('vllm serve /m --compilation-config \'{{"mode": 3, "cudagraph_mode": "FULL"}}\'', _VL),
)

PA_NO_VALUE_EXPECTED = Rule(
    code="PA022",
    layer="parser",
    severity="error",
    title="Value given to a flag that takes none",
    rationale="Boolean flags take no value: `--enable-metrics true` leaves `true` over (unrecognized "
    "arguments, "
    "exit 2), and `--flag=false` is an error too.",
    fix="write the flag alone to turn it on; leave it out (or use its --no- form) to turn it off",
    example=_c(f"{_SG} --enable-metrics true"),
    correct=_c(f"{_SG} --enable-metrics"),
)

PA_SERVE_MODEL_PATH = Rule(
    code="PA023",
    layer="parser",
    severity="error",
    title="Model not where the entry point looks for it",
    rationale="`sglang serve` looks for --model-path spelled out before parsing (0.5.23 also takes a first "
    "positional word); `vllm serve` wants the model as its first positional word when --served-model-name is "
    "given. Otherwise the launcher stops before the parser runs.",
    fix="put the model where the entry point expects it",
    example=_c("sglang serve --model /m --port 30000"),
    correct=_c("sglang serve --model-path /m --port 30000"),
)

PA_SERVE_MODEL_OPTION = Rule(
    code="PA056",
    layer="parser",
    severity="info",
    title="`vllm serve --model M`: moved to the positional here, refused by older releases",
    rationale="From 0.11.2 `FlexibleArgumentParser.parse_args` (vllm/utils/argparse_utils.py) moves the "
    "value of `--model` after `vllm serve` to the front as the positional model, with a warning that the "
    'option is deprecated; 0.8.5.post1-0.11.0 raise ValueError instead ("you should provide the model as a '
    'positional argument"), and 0.6.6.post1-0.7.3 require the positional model_tag, so argparse stops '
    "(exit 2). Which release runs decides whether the launch starts; the positional form starts on all of "
    "them (vllm PR#16691: `vllm serve --model mistralai/Mistral-7B-Instruct-v0.3` stopped on main before "
    "0.8.5). With a positional model written too, the moved one takes its place and the written one is "
    "left over: every release refuses the launch (an error then).",
    fix="put the model right after `vllm serve` (`vllm serve M ...`)",
    example=_c("vllm serve --model Qwen/Qwen3-8B --port 8000", _VL),
    correct=_c("vllm serve Qwen/Qwen3-8B --port 8000", _VL),
)

PA_REMOVED_LATER = Rule(
    code="PA024",
    layer="parser",
    severity="info",
    title="Flag removed in a later release",
    rationale="The flag works with this release but a newer bundled release rejects it: the script breaks on "
    "upgrade. For a development build of main after the release analysed (a .devN version) it is a warning: "
    "the build may already refuse it.",
    fix="switch to the spelling the newer release uses, where this release already has it",
    example=_c(f"{_SG} --mamba-scheduler-strategy extra_buffer"),
    correct=_c(f"{_SG} --port 30000"),
)

PA_CONFIG_IGNORED = Rule(
    code="PA025",
    layer="parser",
    severity="error",
    title="Config file silently ignored",
    rationale="SGLang and vLLM expand --config only when the exact word `--config` is followed by "
    "the file name; "
    "`--config=FILE` (or an abbreviation) is parsed as an ordinary option and the file's settings never "
    "arrive.",
    fix="write `--config FILE` as two words",
    example=Example(
        argv=("check", *_SG10, "-c", f"{_SG} --config=server.yaml"),
        files={"server.yaml": "port: 31000\n"},
    ),
    correct=Example(
        argv=("check", *_SG10, "-c", f"{_SG} --config server.yaml"),
        files={"server.yaml": "port: 31000\n"},
    ),
)

PA_UNKNOWN_JSON_KEY = Rule(
    code="PA026",
    layer="parser",
    severity="error",
    title="Unknown key in a JSON config flag",
    rationale="vLLM validates --compilation-config, --kv-transfer-config and the other config flags into its "
    "config classes: a key the class does not have (a typo, a key from another release) is rejected "
    "(exit 2) or, in older releases, dropped without a word.",
    fix="use the field names of the release's config class (the message suggests the nearest)",
    example=_c('vllm serve /m --compilation-config \'{{"cudagraph_mod": "FULL"}}\'', _VL),
    correct=_c('vllm serve /m --compilation-config \'{{"cudagraph_mode": "FULL"}}\'', _VL),
)

PA_TOO_MANY_WORDS = Rule(
    code="PA027",
    layer="parser",
    severity="info",
    title="Too many words to parse",
    rationale="argtrace hands at most 1,024 words to its copy of the framework's parser: Python's argparse "
    "takes time quadratic in the number of options (10^5 flags take over 300 s). The words after the cut "
    "are not parsed, so what they set is not shown (and after 32 argparse errors in a row it stops "
    "recovering from the next one).",
    fix="nothing, if the command really is this long; otherwise look for the generator (a loop or an "
    "expansion) that repeats the flags",
    example=_c(f"{_SG} " + " ".join(["--port 30000"] * 520)),
    correct=_c(f"{_SG} --port 30000"),
)

PA_SERVE_BACKEND = Rule(
    code="PA028",
    layer="parser",
    severity="info",
    title="`sglang serve` backend chosen from the flags",
    rationale="`sglang serve` runs the diffusion server when the model is a diffusion model (its registry, "
    "a local model_index.json, the Hub) and the LLM server otherwise, unless --model-type says which. "
    "argtrace does not read the model: when the command has options only the diffusion server takes, it "
    "checks the words against that server's parser, which the model may not confirm.",
    fix="add --model-type diffusion (or llm) to say which server the command is for",
    example=_c("sglang serve --model-path /m --num-gpus 2 --ulysses-degree 2", _SG23),
    correct=_c("sglang serve --model-type diffusion --model-path /m --num-gpus 2 --ulysses-degree 2", _SG23),
)

PA_VANISHED_POSITIONAL = Rule(
    code="PA029",
    layer="parser",
    severity="error",
    title="An expansion that vanished leaves a required positional out",
    rationale="An unquoted `$MODEL` that is unset or empty expands to no word at all: `vllm serve $MODEL "
    "--port 8000` then reaches the parser without the model, and releases whose `model_tag` is required "
    'stop with "the following arguments are required: model_tag" (exit 2); `sglang serve $MODEL` loses its '
    "first positional word, the model path. That error and the missing positional (PA001, PA020, PA023) are "
    "this finding's consequences. A variable argtrace was not given may "
    "well be set where the server runs: then the finding is a warning resting on that assumption, and the "
    "parser's two findings are notes; a variable the script sets to an empty value is an error.",
    fix="give the variable the model (or write the model itself in its place)",
    exceptions="An expansion that vanishes among flags while no positional is missing (`$EXTRA_ARGS` "
    "unset) is what such variables are for: nothing is said. One right after a flag that takes a value "
    "is SH007/SH026's (the flag loses its value).",
    example=_c("M=; vllm serve $M --port 8000", ("--framework-version", "0.6.6.post1")),
    correct=_c("M=/m; vllm serve $M --port 8000", ("--framework-version", "0.6.6.post1")),
)

_TRL = "CUDA_VISIBLE_DEVICES=0,1 trl vllm-serve --model Qwen/Qwen3-8B --tensor_parallel_size 2"

PA_TRL_REFUSED = Rule(
    code="PA063",
    layer="parser",
    severity="error",
    title="`trl vllm-serve` refuses its arguments",
    rationale="`trl vllm-serve` parses its words with TrlParser (transformers' HfArgumentParser) over the "
    "ScriptArguments dataclass of trl/scripts/vllm_serve.py before vLLM starts: --model is required, a "
    "bool option's value must be one of yes/no, true/false, t/f, y/n, 1/0, an int or float option's value "
    'must convert, and releases before 1.11.0 refuse any word the dataclass lacks ("ValueError: Some '
    'specified arguments are not used by the HfArgumentParser: [...]"). Then nothing starts (the fields of '
    "each release: frameworks/data/trl_vllm_serve.json, generated from the TRL wheels).",
    fix="write the option as TRL's ScriptArguments names it (`--tensor_parallel_size 2`), with a value "
    "of its type",
    example=_c("trl vllm-serve --tensor_parallel_size 2", _VL),
    correct=_c("trl vllm-serve --model Qwen/Qwen3-8B --tensor_parallel_size 2", _VL),
)

PA_TRL_FORWARDED = Rule(
    code="PA064",
    layer="parser",
    severity="info",
    title="Words `trl vllm-serve` forwards to `vllm serve` only from TRL 1.11.0",
    rationale="From TRL 1.11.0, `trl vllm-serve` keeps the words its ScriptArguments lack "
    "(parse_args_and_config(return_remaining_strings=True)) and appends them to the `vllm serve` command "
    "it runs (build_command), so any vLLM flag can be given. TRL 0.17.0-1.10.0 run their own server around "
    "vLLM's LLM(...) and stop at such a word: \"ValueError: Some specified arguments are not used by the "
    'HfArgumentParser: [...]". The TRL release is not seen in a launch; the note says which releases '
    "refuse the words, resting on that assumption.",
    fix="run TRL 1.11.0 or later, or keep to the options of the TRL release installed",
    example=_c(f"{_TRL} --max-num-seqs 64", _VL),
    correct=_c(_TRL, _VL),
)

PA_TRL_CLI_DP = Rule(
    code="PA065",
    layer="parser",
    severity="info",
    title="Data parallelism through TRL's CLI entry point, which TRL 0.17-0.25 say crashes",
    rationale="TRL's CLI (trl/cli.py) of the releases the table records warns, for `trl vllm-serve` with "
    "tensor_parallel_size 1 and data_parallel_size above 1, that the setup is known to crash through the "
    'CLI entry point (vllm#17079; the "Duplicate GPU detected" NCCL warnings of trl PR#3310) and asks for '
    "`python -m trl.scripts.vllm_serve`. The TRL release is not seen in a launch, so this is a note naming "
    "the releases whose CLI says so.",
    fix="start it as `python -m trl.scripts.vllm_serve ...`, or run a TRL release whose CLI does not warn",
    example=_c("CUDA_VISIBLE_DEVICES=0,1 trl vllm-serve --model /m --data_parallel_size 2", _VL),
    correct=_c(
        "CUDA_VISIBLE_DEVICES=0,1 python -m trl.scripts.vllm_serve --model /m --data_parallel_size 2", _VL
    ),
)

PA_HF_OVERRIDE_KEY_LOST = Rule(
    code="PA058",
    layer="parser",
    severity="error",
    title="An --hf-overrides key no configuration field can be",
    rationale="vLLM sets each top-level key of --hf-overrides on the model's Hugging Face configuration as "
    "it is written: a plain value through PretrainedConfig.update (vllm/transformers_utils/config.py, "
    "get_config: `config.update(hf_overrides_kw)`, 0.11.2 and 0.33.0) and a mapping through setattr "
    "(vllm/config/model.py, ModelConfig._apply_dict_overrides, 0.11.2 and 0.33.0). Configuration fields "
    "are Python attribute names, so a key with a hyphen (`rope-scaling`) becomes an attribute nothing "
    "reads, without a word: the override is lost, and a --max-model-len that relied on it (with "
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1) passes the start checks and fails at the first long request "
    "(vllm#31709). The key with underscores is named as the likely field; the model's config.json "
    "lists the fields it has.",
    fix="write the key with underscores, as the model's config.json spells the field",
    example=_c(
        'vllm serve /m --hf-overrides \'{{"rope-scaling": {{"rope_type": "yarn", "factor": 4.0}}}}\'',
        _VL,
    ),
    correct=_c(
        'vllm serve /m --hf-overrides \'{{"rope_scaling": {{"rope_type": "yarn", "factor": 4.0}}}}\'',
        _VL,
    ),
    exceptions="Only top-level keys: the keys inside a mapping value (rope_scaling's, id2label's) are read "
    "by the code that takes the mapping, and some are not identifiers (label names).",
)

PA_FORK_FLAG = Rule(
    code="PA059",
    layer="parser",
    severity="info",
    title="A flag no release knows, on a launch written for a vendor build",
    rationale="Vendor builds of vLLM (Habana's vllm-fork for Gaudi, platform plugins) add options and "
    "environment variables of their own. When a launch sets two or more variables with the framework's "
    "prefix that no bundled release reads and none misspells (VLLM_PROMPT_BS_BUCKET_MIN, "
    "VLLM_DECODE_BLOCK_BUCKET_MAX: read from each release's code), it is written for such a build, and a "
    "flag no release knows (--split_qkv, --max-num-prefill-seqs) may be that build's own: upstream refuses "
    'it ("unrecognized arguments", exit 2), the build the launch is for may not. A note resting on the '
    "launch running that build, in place of PA001's refusal.",
    fix="check the flag against the build the launch runs (its `--help`); on upstream, remove it",
    example=_c("VLLM_PROMPT_BS_BUCKET_MAX=4 VLLM_DECODE_BLOCK_BUCKET_MAX=864 vllm serve /m --split_qkv", _VL),
    correct=_c("VLLM_PROMPT_BS_BUCKET_MAX=4 VLLM_DECODE_BLOCK_BUCKET_MAX=864 vllm serve /m", _VL),
    exceptions="One such variable is not enough (a script's own, or a typo: PR001); a flag a release "
    "knows, or another framework's, keeps its own finding.",
)

PA_DRAFT_TP_LOST = Rule(
    code="PA057",
    layer="parser",
    severity="warning",
    title="A draft tensor-parallel size the release's drafter never reads",
    rationale="vLLM's --speculative-config takes draft_tensor_parallel_size (1 or the target's "
    "--tensor-parallel-size, SpeculativeConfig._verify_and_get_draft_tp) and builds a draft_parallel_config "
    'from it, but in the V1 engine only the separate draft model\'s proposer ("method": "draft_model", '
    "vllm/v1/spec_decode/draft_model.py) reads that configuration: an EAGLE, EAGLE-3 or MTP drafter is built "
    "inside the target's model runner and is split as the target is (vllm#31345 on 0.13.0: "
    '"draft_tensor_parallel_size": 1 under TP 4, the draft still on four ranks; vllm PR#31886, PR#31705). '
    "The value written is lost without a word. Which code reads the draft's parallel configuration is read "
    "from each release's wheel (scripts/gen_vllm_draft_tp.py).",
    fix="remove draft_tensor_parallel_size, or write the target's --tensor-parallel-size",
    example=_c(
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4 --speculative-config "
        '\'{{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", '
        '"num_speculative_tokens": 3, "draft_tensor_parallel_size": 1}}\'',
        ("--framework-version", "0.28.0"),
    ),
    correct=_c(
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4 --speculative-config "
        '\'{{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", '
        '"num_speculative_tokens": 3}}\'',
        ("--framework-version", "0.28.0"),
    ),
    exceptions='Only with a "method" written (vLLM infers it from the draft\'s name otherwise) and a size '
    "other than the target's; nothing for a release whose wheel was not read, or whose other drafters read "
    "the draft's parallel configuration (0.30.0 on: the DSpark loader, and from 0.31.0 the model runner's "
    "load_draft_model), or for a launch that sets Ascend variables (ASCEND_*, HCCL_*): vllm-ascend's own "
    "EAGLE proposer honours the key since vllm-ascend PR#5519.",
)

PA_DRAFT_COUNT_MISSING = Rule(
    code="PA062",
    layer="parser",
    severity="warning",
    title="A draft model without num_speculative_tokens",
    basis="assumed",
    rationale="vLLM's SpeculativeConfig takes the number of draft tokens from the draft's config.json "
    "(n_predict) when --speculative-config does not write num_speculative_tokens; MTP, Medusa and "
    "MLP-speculator drafts carry one, an EAGLE, EAGLE-3 or plain language-model draft does not, and the "
    "release refuses the launch at start-up (vllm 0.33.0 SpeculativeConfig.__post_init__, "
    'vllm/config/speculative.py:1615: "A speculative model was provided, but `num_speculative_tokens` was '
    'not provided"; 0.8.5.post1-0.20.2 _verify_args: "num_speculative_tokens must be provided with '
    'speculative model unless the draft model config contains an n_predict parameter."). vllm PR#20375 '
    "(the docs' EAGLE example) and vllm PR#44566 (an EAGLE-3 draft in the speculators format) hit it. The "
    "refusal's place and message are read from the release's raise-site index (scripts/gen_schemas.py); "
    "the draft's config.json is not read, so the finding rests on the method.",
    fix='write "num_speculative_tokens" in --speculative-config (how many tokens the draft proposes per '
    "step, e.g. the depth it was trained for)",
    example=_c(
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config "
        '\'{{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"}}\'',
        _VL,
    ),
    correct=_c(
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config "
        '\'{{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", '
        '"num_speculative_tokens": 3}}\'',
        _VL,
    ),
    exceptions='Only for "method" eagle, eagle3 or draft_model, or no method and a draft whose name says '
    "EAGLE (vLLM infers the method from it); nothing for MTP, Medusa, MLP-speculator or n-gram drafting, "
    "for a release whose raise-site index has no such refusal, or for a launch argparse refuses first.",
)

PA_LITERAL_VARIABLE = Rule(
    code="PA060",
    layer="parser",
    severity="warning",
    title="A shell variable that reaches the server as text",
    rationale="A flag's value that holds `$NAME` inside single quotes (a JSON object for "
    "--kv-transfer-config, --speculative-config...) keeps the `$` as written, and so does an exec-form "
    "argument list or a YAML list item: the shell never expands it, and neither framework expands "
    "environment variables in its flags' values afterwards (no os.path.expandvars in vllm 0.33.0's or "
    "sglang 0.5.23's code). The server gets the variable's name where the launch meant its value "
    '(kthena PR#937: "engine_id": "$MOONCAKE_ENGINE_ID").',
    fix="end the single quotes before the variable and start them again after it, writing it in double "
    "quotes ('...'\"$NAME\"'...')",
    example=_c(
        "ENGINE_ID=decode-0 vllm serve /m --kv-transfer-config "
        '\'{{"kv_connector": "NixlConnector", "kv_role": "kv_both", "engine_id": "$ENGINE_ID"}}\'',
        _VL,
    ),
    correct=_c(
        "ENGINE_ID=decode-0 vllm serve /m --kv-transfer-config "
        '\'{{"kv_connector": "NixlConnector", "kv_role": "kv_both", "engine_id": "\'"$ENGINE_ID"\'"}}\'',
        _VL,
    ),
    exceptions="Only when the launch's environment sets the variable (a `$` in a regex, a template or a "
    "secret is left alone), and not for a credential's flag.",
)

PA_ATTENTION_NAME = Rule(
    code="PA070",
    layer="parser",
    severity="error",
    title="An attention backend name the vLLM release does not have",
    basis="framework-code",
    rationale="vLLM looks the attention backend a launch names (VLLM_ATTENTION_BACKEND in the releases "
    "whose envs.py reads it, 0.6.6.post1-0.14.1; --attention-backend or --attention-config's backend from "
    "0.13.0) up in its backend enum and refuses a name it lacks at start-up with its own message: "
    "\"Unknown attention backend: 'XFORMERS'. Valid options are: ...\" (vllm 0.33.0 "
    'v1/attention/backends/registry.py:28, through AttentionConfig.validate_backend_before), "Invalid '
    "value 'X' for VLLM_ATTENTION_BACKEND. Valid options: [...]\" (0.11.0-0.14.1 envs.py env_with_choices). "
    "Backends are removed over time (XFORMERS is gone from 0.12.0, FLASHINFER_VLLM_V1 from 0.11.0), so a "
    "launch written for one release stops on a newer one. vLLM 0.7.3-0.9.2 drop an unknown name instead and "
    "choose a backend as if it were not set (a warning). From 0.11.2 the enum also holds TORCH_SDPA as a tag "
    "without a class (ViT attention only): named for the model's attention, CUDA's selector cannot load it "
    '("Backend TORCH_SDPA must be registered before use", vllm-omni#4342; a warning resting on a CUDA GPU). '
    "Each release's names and messages are read from its wheel (scripts/gen_vllm_attention_names.py).",
    fix="name a backend the release has (or remove the setting so that vLLM chooses one for the GPU)",
    example=_c("vllm serve Qwen/Qwen3-8B --attention-backend XFORMERS", _VL),
    correct=_c("vllm serve Qwen/Qwen3-8B --attention-backend FLASH_ATTN", _VL),
    exceptions="Nothing for a release whose wheel was not read, for a variable inherited from the caller's "
    "environment, or for the variable on a release that does not read it (PR001 says so, and its advice "
    "to pass the flag notes a name the flag refuses too); a warning when nothing names the release. "
    "Whether the GPU supports a backend the release has is another question (its selector's "
    '"Invalid attention backend for cuda").',
)
