"""``argtrace why`` on a library's message whose placeholder is a server setting's value: what the library
does with that value and which settings pass it (huggingface_hub's repo id, transformers' model directory,
Triton's fp8 types), and what a refused repo id really was (a GGUF reference, a path not there, a Hugging
Face cache's repo folder). Split from commands/why.py, which uses it for a library's own site."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def placeholder_values(parts: Sequence[Any], text: str) -> dict[str, str]:
    """What each placeholder of a message stands for in the pasted text (``{"repo_id": "a/b:c"}``); empty
    when the message has optional pieces or does not match the text whole."""
    if any(isinstance(p, dict) for p in parts):
        return {}
    pieces: list[str] = []
    names: list[str] = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(r"\s*".join(re.escape(w) for w in part.split()) if part.strip() else r"\s*")
        else:
            pieces.append(f"(?P<p{len(names)}>.+?)")
            names.append(str(part[0]))
    if not names:
        return {}
    if not isinstance(parts[-1], str):  # a trailing placeholder takes the rest of the text
        pieces[-1] = f"(?P<p{len(names) - 1}>.+)"
    flat = " ".join(text.split())
    m = re.search("".join(pieces), flat)
    if m is None and isinstance(parts[-1], str) and parts[-1].strip():
        # a pasted line often loses or rewrites the message's tail ("Use repo_type argument if needed" for
        # "Use `repo_type` argument if needed."): the closing literal's first character ends the value
        pieces[-1] = re.escape(parts[-1].strip()[0])
        m = re.search("".join(pieces), flat)
    return {name: m.group(f"p{i}") for i, name in enumerate(names)} if m else {}


@dataclass(frozen=True)
class LibraryValue:
    """A library's message whose placeholder is the value a server setting was given: which settings pass
    it (``flags``; none: the flags that name the model, layers/resolution.MODEL_FLAGS), what the library
    does with it (``how``) and the way out (``fix``); ``prefix``: only values that start with it."""

    how: str
    fix: str
    flags: tuple[str, ...] = ()
    prefix: str = ""


_LIBRARY_VALUES = {
    ("huggingface_hub", "repo_id"): LibraryValue(
        "a value that is not a local directory is loaded from the Hub as a repo id",
        "give an existing local directory or a valid repo id (a revision goes to --revision, not into the "
        "id)",
    ),
    # Triton's dtype.to_ir refuses an fp8 type the GPU lacks (fp8e4nv: SM89+); vLLM builds such kernels for
    # an fp8 KV cache (vllm/v1/attention/ops/triton_reshape_and_cache_flash.py: "an FP8 KV cache needs
    # native fp8e4nv (SM89+)") and for fp8 weights. Fp8 weights need no flag: both frameworks take the
    # method from the checkpoint's config.json (quantization_config, quant_method fp8: SGLang's
    # ModelConfig._parse_quant_hf_config, vLLM's ModelConfig._verify_quantization), and SGLang runs block fp8
    # GEMMs through Triton's w8a8_block_fp8_matmul where its CUTLASS/DeepGEMM kernels need SM89+/SM90
    # (sglang#13471: MiniMax-M2's fp8 checkpoint on A800, no --quantization given)
    ("triton", "self"): LibraryValue(
        "a Triton kernel was built for an fp8 type this GPU lacks (fp8e4nv needs compute capability 8.9+), "
        "from an fp8 KV cache, fp8 quantization or an fp8 checkpoint",
        "on this GPU use --kv-cache-dtype auto (or float16) and no fp8 --quantization; a checkpoint "
        "whose config.json says fp8 (quantization_config) needs a GPU of compute capability 8.9+ or another "
        "variant of the model (bf16, int8, int4)",
        ("--kv-cache-dtype", "--quantization"),
        "fp8",
    ),
    # transformers' AutoConfig.from_pretrained reads config.json of the directory or repo it is given, which
    # is the model setting's value (SGLang's --model-path, vLLM's --model): a LoRA adapter's directory, a
    # checkpoint in another format (Mistral's params.json) or a dataset has no model_type it knows
    ("transformers", "pretrained_model_name_or_path"): LibraryValue(
        "transformers reads that directory's or repo's config.json and finds no model_type it knows",
        "give the model's own directory (a LoRA adapter's goes to the LoRA flags, a checkpoint in another "
        "format needs its format's loader), or a transformers release that knows its model_type",
    ),
}
# The same placeholder in another message of the library, which says another file is read: the first entry
# whose words the message's literal text holds wins over ``_LIBRARY_VALUES``. transformers'
# AutoImageProcessor.from_pretrained (models/auto/image_processing_auto.py) takes the image processor class
# from preprocessor_config.json's image_processor_type, else from config.json's model_type; proxy-lite#25: a
# Qwen2.5-VL fine-tune whose preprocessor_config.json names a class the installed transformers lacks
_LIBRARY_VALUES_BY_MESSAGE = {
    ("transformers", "pretrained_model_name_or_path", "image processor"): LibraryValue(
        "transformers reads that directory's or repo's preprocessor_config.json (its image_processor_type) "
        "and config.json (its model_type) and knows no image processor class by those names",
        "a transformers release that has the image processor class the model's preprocessor_config.json "
        "names (the framework release's requirements name the range), or the model's updated "
        "preprocessor_config.json (an image_processor_type this release has); a directory without "
        "preprocessor_config.json is not the model's own",
    ),
}


def _library_value(library: str, name: str, parts: Sequence[Any]) -> LibraryValue | None:
    """What a library's placeholder stands for in this message: the entry for its words, else the one for
    the placeholder."""
    words = " ".join(p for p in parts if isinstance(p, str)).lower()
    for (lib, key, marker), known in _LIBRARY_VALUES_BY_MESSAGE.items():
        if (lib, key) == (library, name) and marker in words:
            return known
    return _LIBRARY_VALUES.get((library, name))


# a frame of a call that asks for one file of a model (vLLM's get_hf_file_to_dict), not for the model folder
_ONE_FILE = re.compile(r"\bin get_hf_file_to_dict\b|\bget_hf_file_to_dict\(")


def _path_as_repo_id(value: str, text: str = "") -> tuple[str, str] | None:
    """(how, fix) when the value huggingface_hub refused as a repo id is a GGUF ``<repo_id>:<quant_type>``
    reference (frameworks/model_refs.py: the releases whose loader takes it), or a path: the frameworks
    hand the Hub only a value that is not an existing local model folder (vLLM's and SGLang's model
    loading, transformers' ``cached_file``), so no model folder of that name (with its config.json) was
    found where the process ran: a folder on another node, outside the container, an incomplete download,
    or not there at all. A Hugging Face cache's repo folder (``models--ORG--NAME``) is a directory, but
    not a model's (its files are in ``snapshots/<revision>``)."""
    from argtrace.frameworks.model_refs import FORM_TEXT, cache_repo_folder, releases_taking, repo_quant

    split = repo_quant(value)
    taking = {fw: releases_taking(fw, "repo_quant") for fw in ("vllm", "sglang")}
    if split is not None and any(taking.values()):
        spans = ", ".join(f"{fw} {r[0]}-{r[-1]}" for fw, r in taking.items() if r)
        return (
            f"{value!r} is a GGUF reference {FORM_TEXT['repo_quant']} (repo {split[0]}, quant type "
            f"{split[1]}), "
            f"which only some releases' GGUF loaders take ({spans}, scripts/gen_model_refs.py); the one that "
            "ran handed it to huggingface_hub as a repo id",
            f"run a release that takes it ({spans}), or download the .gguf file and give its local path (the "
            "original model's repo to --tokenizer)",
        )
    if not value.startswith(("/", "./", "../", "~")) and value.count("/") < 2:
        return None
    folder = cache_repo_folder(value)
    if folder is not None:
        return (
            f"{value!r} is a Hugging Face cache's folder of the repo {folder[1]} (models--ORG--NAME), which "
            "holds blobs/, refs/ and snapshots/<revision>/, not the model's config.json, so it was read as a "
            "repo id",
            f"give the snapshot folder {folder[0]}/snapshots/<revision>, or the repo id {folder[1]} with "
            f"HF_HUB_CACHE={folder[0].rsplit('/', 1)[0] or '/'}",
        )
    if _ONE_FILE.search(text):
        # vllm-omni#2123: DreamID-Omni's local folder, asked for transformer/config.json; vLLM 0.33.0's
        # get_hf_file_to_dict (vllm/transformers_utils/repo_utils.py:465) tries the local file first and then
        # hands the model to the Hub as a repo id
        return (
            f"{value!r} is a path, and the caller asked for one file of the model (get_hf_file_to_dict: the "
            "local file first, then the Hub with the path as a repo id): the folder is not where the process "
            "runs, or it lacks that file (a model whose layout the calling code does not expect)",
            "check that the folder holds the file the call names (its file_name, beside config.json); if it "
            "does not and the layout is the model publisher's, the calling code expects another layout (a "
            "release with the fix, or its issue tracker); else make the folder exist where the server runs",
        )
    return (
        f"{value!r} is a path, but no model folder of that name (a directory holding its config.json) was "
        'found where the process ran, so it was read as a repo id (vLLM also logs this, as "Error retrieving '
        'safetensors: ...", for a local folder it then loads: that line alone is harmless)',
        "make the folder, with its config.json, exist where the server runs, on every node of a multi-node "
        "start and inside its container (mount it), or correct the path; a relative path is read from the "
        "server's working directory",
    )


def library_settings(
    library: str, parts: Sequence[Any], text: str, framework: str | None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """(settings, placeholder values) of a library's message: the frameworks' settings whose value the
    placeholder is, with the value the text shows (``framework``: only its settings)."""
    from argtrace.layers.log.sites import _dest
    from argtrace.layers.resolution import MODEL_FLAGS

    values = placeholder_values(parts, text)
    out: list[dict[str, Any]] = []
    for lib, name in _LIBRARY_VALUES:
        known = _library_value(lib, name, parts)
        if lib != library or name not in values or known is None:
            continue
        value = values[name].strip().strip("'\"")
        if not value.startswith(known.prefix):
            continue
        shaped = _path_as_repo_id(value, text) if (lib, name) == ("huggingface_hub", "repo_id") else None
        how, fix = shaped or (known.how, known.fix)
        for fw in [framework] if framework in MODEL_FLAGS else sorted(MODEL_FLAGS):
            for flag in known.flags or MODEL_FLAGS[fw][:1]:
                dest = _dest(fw, None, flag)
                if dest:
                    entry = {"name": dest, "flag": flag, "framework": fw, "value": value}
                    out.append(entry | {"via": f"{library}:{name}", "how": how, "fix": fix})
        if (lib, name) == ("transformers", "pretrained_model_name_or_path"):
            out[:0] = _draft_settings(value, framework, library, name)
    return out, values


# a directory named for a speculative draft (Ascend/sglang#602's ".../YZY/Qwen3-8B_eagle3"): the servers read
# a draft's config.json through AutoConfig too, from the draft's own setting
_DRAFT_NAME = re.compile(r"(?i)eagle|draft|mtp|nextn|medusa|dflash|speculator")
_DRAFT_FLAGS = {"sglang": "--speculative-draft-model-path", "vllm": "--speculative-config"}


def _draft_settings(value: str, framework: str | None, library: str, name: str) -> list[dict[str, Any]]:
    """The draft model's settings, first, when the refused directory's own name says it is a speculative
    draft's: an assumption from its name, which the entry says."""
    from argtrace.layers.log.sites import _dest

    last = [p for p in re.split(r"[/\\]", value) if p][-1:] or [""]
    if not _DRAFT_NAME.search(last[0]):
        return []
    out = []
    for fw, flag in sorted(_DRAFT_FLAGS.items()):
        dest = _dest(fw, None, flag) if framework in (None, fw) else None
        if dest:
            out.append(
                {"name": dest, "flag": flag, "framework": fw, "value": value, "via": f"{library}:{name}"}
                | {
                    "how": f"its name ({last[0]}) says a speculative draft's directory, whose config.json "
                    "the server reads the same way",
                    "fix": "give the draft a directory whose config.json has the model_type of its "
                    "architecture (a draft converted or trained elsewhere may lack it), or a release that "
                    "reads that draft format",
                }
            )
    return out


def one_file_lookup(groups: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """huggingface_hub's refusal of a local path as a repo id, said again when the whole text shows a call
    that asked for one file of the model (vLLM's get_hf_file_to_dict, vllm-omni#2123): the folder may be
    there and lack that file, which the matched lines alone do not show. ``groups`` is changed in place."""
    if not _ONE_FILE.search(text):
        return groups
    for group in groups:
        if group.get("framework") != "huggingface_hub":
            continue
        for setting in group.get("settings") or ():
            if "value" not in setting or "how" not in setting:
                continue
            shaped = _path_as_repo_id(setting["value"], text)
            if shaped is None:
                continue
            fix = str(group.get("fix") or "")
            group["fix"] = fix.replace(setting["how"], shaped[0]).replace(setting["fix"], shaped[1])
            setting["how"], setting["fix"] = shaped
    return groups


# transformers' ProcessorMixin checks each part it is given against the class its processor names
# (processing_utils.py: ProcessorMixin.__init__ in 4.51.3, check_argument_for_proper_class in 4.57.6-5.23.0):
# "Received a Qwen2VLImageProcessorFast for argument image_processor, but a Qwen2VLImageProcessor was
# expected" (vllm#20855, Qwen2.5-Omni#333: a transformers release that loads the fast image processor by
# default, under a model processor made for the slow one; the threads' fix: the transformers release the
# model and framework were made for)
_PROCESSOR_PART = re.compile(r"Received an? (\w+) for argument (\w+), but an? (\w+) was expected")
_PROCESSOR_CHECKS = ("ProcessorMixin.__init__", "ProcessorMixin.check_argument_for_proper_class")


def processor_part_fix(groups: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """transformers' refusal of a processor's part: the part was built by another class than the processor
    expects, which the installed transformers release decides (Auto* classes pick the fast or slow one), not
    a server setting; the fix is a release that fits. ``groups`` is changed in place."""
    found = _PROCESSOR_PART.search(" ".join(text.split()))
    for group in groups:
        if group.get("framework") != "transformers" or group.get("function") not in _PROCESSOR_CHECKS:
            continue
        given, part, wanted = found.groups() if found else ("another class", "a part", "the class it names")
        group["fix"] = (
            f"transformers built the processor's {part} as {given} where the model's processor class expects "
            f"{wanted}, which the installed transformers release decides (its Auto* classes pick the fast or "
            "the slow one), not a server setting: install the transformers release the framework release "
            "and the model were made for (the framework release's requirements name the range), or the "
            "framework release made for the installed transformers"
        )
    return groups
