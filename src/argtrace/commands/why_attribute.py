"""Python's own AttributeError (``'ServerArgs' object has no attribute 'encoder_only'``): the class and the
attribute, and, when the object is the server's arguments, the flag that sets that attribute and the releases
that have it.

No framework writes these words: the interpreter raises them when code reads an attribute the object lacks.
Before 2026-12-03 ``why`` ranked the frameworks' own ``__getattr__`` sites first, whose message is the same
sentence with the class as a placeholder (vLLM's ``BaseLayerWithLoRA.__getattr__``, "{type(self).__name__}
object has no attribute {name}": 20 literal characters, every one Python's), as if every AttributeError of
any class were raised there (the 15th batch of `why` texts: 8 of 25 were). Such a site is kept only when the
text's class is its own class; a site with words of its own stays.

Which object lacks the attribute decides what it means:

- the object the frameworks build their command lines into (SGLang's ``ServerArgs``, vLLM's ``EngineArgs``
  and ``AsyncEngineArgs``: a flag ``--x-y`` is the field ``x_y``; argparse's ``Namespace``, whose attributes
  are a parser's dests): the attribute is a setting, and the bundled release schemas say which flag sets it
  and which releases have it. Code reading a field the installed release lacks was written for another
  release (THUDM/slime#1741 read ``server_args.encoder_only``, which SGLang has from 0.5.7); a Namespace
  without a dest the server code reads came from a parser of another release (HabanaAI/vllm-fork#2190:
  ``args.h11_max_incomplete_event_size``, a parser without ``--h11-max-incomplete-event-size``);
- ``NoneType``: a value the code expected was never set on that path;
- any other class: either the code reading the attribute and the package defining the class do not fit
  (two releases), or the code reads the wrong object on that path (a bug of the one release: vllm#24888,
  vLLM's own arg_utils calling ``.get`` on the ``SpeculativeConfig`` its parser had already built from
  ``--speculative-config``). The text alone does not say which (the traceback's innermost frame does), so
  both are named. A class whose name is a flag's (``--speculative-config`` builds a ``SpeculativeConfig``,
  by the name) ties the error to that flag's value; a mapping's method (``.get``, ``.items``) read on it
  means the code expected the JSON object the flag was given and got the object built from it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# CPython's message (3.8-3.13; 3.12+ may add "Did you mean: 'x'?"); the class and the attribute are each
# read once (possessive), so a pasted run of letters cannot make the search backtrack. A paste cut before the
# closing quote (slime#1741: ``'encoder_only``) still names the attribute.
# A paste through an editor or chat may curl the quotes (vllm#15625's "DeciLMConfig object has no attribute
# ‘num_key_value_heads_per_layer’") or drop them around a class name, which then must read as one (CamelCase).
ATTRIBUTE_FORM = re.compile(
    r"(?<![\w.])(?:['‘’](?P<cls>[A-Za-z_]\w{0,200}+)['‘’]|(?P<bare>[A-Z]\w{0,200}+))"
    r" object has no attribute ['‘’](?P<attr>[A-Za-z_]\w{0,200}+)['‘’]?"
)

# the objects whose attributes are launch settings: the classes the command line is built into, and
# argparse's Namespace (its attributes are the parser's dests)
ARGUMENT_OBJECTS: Mapping[str, tuple[str, ...]] = {
    "ServerArgs": ("sglang",),
    "EngineArgs": ("vllm",),
    "AsyncEngineArgs": ("vllm",),
    "Namespace": ("sglang", "vllm"),
}
_NAME = {"vllm": "vLLM", "sglang": "SGLang"}
# the words of Python's own message: a site whose literal words are only these says nothing of its own
PYTHON_WORDS = frozenset({"object", "has", "no", "attribute"})
# a dict's methods: code calling one on an object expected a mapping (the JSON a flag was given)
MAPPING_METHODS = frozenset({"get", "items", "keys", "values", "pop", "setdefault", "update", "copy"})


def _flag_named_like(cls: str, framework: str | None) -> tuple[str, str] | None:
    """(framework, flag) of a flag whose name is ``cls`` spelt as an option (``SpeculativeConfig``:
    ``--speculative-config``; ``KVTransferConfig``: ``--kv-transfer-config``), from the release index's
    flags: the object the flag's value is built into, by the name (not a mapping the releases state)."""
    from argtrace.frameworks.release_index import release_index

    key = cls.lower()
    if not key.endswith("config"):
        return None  # a flag's value is built into a *Config dataclass; other names are not settings
    for fw in (framework,) if framework in _NAME else tuple(_NAME):
        for flag in release_index(fw).flags:
            if flag.startswith("--") and flag[2:].replace("-", "").lower() == key:
                return fw, flag
    return None


def _tokenizer_mode_named_like(cls: str) -> str | None:
    """The ``--tokenizer-mode`` word a vLLM release registers whose tokenizer class is ``cls`` by the name
    (``MistralTokenizer``: ``mistral``; the registered words read from the wheels,
    data/vllm_tokenizer_modes.json): the object that mode builds, by the name (vllm#16292's
    ``tokenizer_mode="mistral"`` with a checkpoint in transformers' format)."""
    from argtrace.frameworks.vllm_tokenizer_modes import bundled_modes, tokenizer_modes

    key = cls.lower()
    if not key.endswith("tokenizer") or key == "tokenizer":
        return None
    stem = key[: -len("tokenizer")]
    for version in bundled_modes():
        modes = tokenizer_modes(version)
        for word in modes.registered if modes is not None else ():
            if word != "hf" and word.replace("_", "").lower() == stem:
                return word
    return None


def _a(name: str) -> str:
    return ("an " if name == "SGLang" else "a ") + name  # SGLang is read letter by letter


def _holders(framework: str, attr: str, by_dest: bool) -> tuple[tuple[str, ...], list[str], str | None]:
    """The bundled releases of ``framework``, those whose command line sets ``attr`` and the flag that sets
    it. ``by_dest``: the attribute is a parser dest (a Namespace's; the OpenAI server's options count), else
    the field of the argument class (renamed as ``from_cli_args`` renames: why_call._fields)."""
    from argtrace.commands.why_call import _fields
    from argtrace.frameworks.schema import bundled_versions, load_schema

    if not by_dest:
        data = _fields(framework)
        knowing = [r for r, fields in zip(data.releases, data.fields, strict=True) if attr in fields]
        flag = next((f[attr] for f in reversed(data.fields) if attr in f), None)
        return data.releases, knowing, flag
    releases = tuple(bundled_versions(framework, include_user=False))
    knowing, flag = [], None
    for version in releases:
        for option in load_schema(framework, version).options:
            long = [o for o in option.option_strings if o.startswith("--")]
            if option.dest == attr and long:
                knowing.append(version)
                flag = long[0]
                break
    return releases, knowing, flag


def _place(cls: str, attr: str, framework: str | None) -> dict[str, Any]:
    """``meaning``, ``fix`` and what the schemas say of ``attr`` on one of the argument objects."""
    from argtrace.commands.why_call import _spans

    names = ARGUMENT_OBJECTS[cls]
    frameworks = (framework,) if framework in names else names
    namespace = cls == "Namespace"
    head = f"Python's own AttributeError: the {cls} object has no attribute {attr!r}; "
    found = []
    for fw in frameworks:
        releases, knowing, flag = _holders(fw, attr, namespace)
        if knowing and flag:
            found.append((fw, releases, knowing, flag))
    if not found:
        from argtrace.frameworks.schema import bundled_versions

        every = "; ".join(
            f"{_NAME[fw]} {rs[0]}-{rs[-1]}"
            for fw in frameworks
            if (rs := bundled_versions(fw, include_user=False))
        )
        what = "parser" if namespace else cls
        return {
            "meaning": head + f"no bundled release's {what} has {attr!r} ({every}): the code reading it was "
            "written for another program's options or for a release or fork not bundled here",
            "fix": f"run the code that reads {cls}.{attr} with the program and release it was written for, "
            f"or read it as getattr(..., {attr!r}, default); no flag of the bundled releases sets it",
            "basis": "schema",
        }
    fw, releases, knowing, flag = found[0]
    name = _NAME[fw]
    lacking = [r for r in releases if r not in knowing]
    has = f"{name} {_spans(releases, knowing)}"
    entry: dict[str, Any] = {"framework": fw, "flag": flag, "releases": knowing, "absent_in": lacking}
    if not lacking:
        entry["meaning"] = head + (
            f"every bundled {name} release ({releases[0]}-{releases[-1]}) sets it from {flag}: the object "
            "was "
            f"built by {_a(name)} older than {releases[0]} or a build without {flag}, while the code "
            "reading it "
            "expects it"
        )
        entry["fix"] = (
            f"upgrade {name} to a release with {flag}, or run the reading code's release made for the "
            "installed "
            f"{name}"
        )
    elif namespace:
        entry["meaning"] = head + (
            f"{has}'s parsers define {flag} (dest {attr}), {_spans(releases, lacking)}'s do not: the "
            "Namespace "
            f"came from a parser without {flag} while the code reading args.{attr} is of a release that has "
            "it (a parser and server code of different releases)"
        )
        entry["fix"] = (
            f"build the parser and run the server from one {name} release that has {flag} "
            f"({_spans(releases, knowing)}): reinstall {name}, or add {flag} to the parser the program builds"
        )
    else:
        entry["meaning"] = head + (
            f"{has} set {cls}.{attr} from {flag}, {_spans(releases, lacking)} have no such field: the code "
            f"reading it was written for a release that has it, and the installed {name} is one without it"
        )
        entry["fix"] = (
            f"install {_a(name)} release that has {flag} ({_spans(releases, knowing)}), or run a release of "
            "the "
            f"calling program made for the installed {name} (one that reads {attr} with getattr)"
        )
    if cls == "EngineArgs":
        # the bundled schemas are `vllm serve`'s parser, EngineArgs' fields and AsyncEngineArgs' own together
        # (vLLM 0.6's disable_log_requests was AsyncEngineArgs' only: vllm#9708)
        entry["meaning"] += (
            "; read from `vllm serve`'s parser, which also holds AsyncEngineArgs' own fields: whether "
            "EngineArgs itself has it, the schemas do not say"
        )
    return {**entry, "basis": "schema"}


def attribute_error(
    text: str, framework: str | None = None, version: str | None = None
) -> dict[str, Any] | None:
    """The class, the attribute and what Python's AttributeError in the text means; None without one. The
    aftermath of an earlier error (raised while tearing down: :func:`in_teardown_after_error`) is marked
    ``aftermath``: its class still keeps Python's own words from matching other classes' sites."""
    m = ATTRIBUTE_FORM.search(text)
    if m is None:
        return _module_attribute(text)
    if in_teardown_after_error(text, m.start()):
        cls = m.group("cls") or m.group("bare")
        return {"class": cls, "attribute": m.group("attr"), "evidence": m.group(0), "aftermath": True}
    cls, attr = m.group("cls") or m.group("bare"), m.group("attr")
    found: dict[str, Any] = {"class": cls, "attribute": attr, "evidence": m.group(0)}
    if cls in ARGUMENT_OBJECTS:
        return {**found, **_place(cls, attr, framework)}
    if cls == "NoneType":
        return {
            **found,
            "meaning": "Python's own AttributeError: a value the code expected to be an object was None "
            "when "
            f"it read .{attr}: something was never set on this path; the text itself names no launch flag",
            "fix": "the traceback's innermost frame is where the None was read: the step or feature that "
            "should "
            "have set it (often a combination of options the code does not prepare for) is the cause",
        }
    either = (
        f"either the code reading {cls}.{attr} and the package defining {cls} come from releases that do "
        "not fit, or that code reads the wrong object on this path (a bug of the release); the "
        "traceback's innermost frame, not in this text, tells which"
    )
    fix = (
        "read the traceback's innermost frame: code of the installed release there is that release's bug "
        "(its issues, or a release without it); code of another program or package calls it across "
        "releases that do not fit: install the releases that go together (the calling program's "
        "requirements name them)"
    )
    frame = innermost_frame(text)
    foreign = frame is not None and frame[0] not in ("sglang", "vllm")
    mode = _tokenizer_mode_named_like(cls) if framework != "sglang" and not foreign else None
    if mode is not None:
        return {
            **found,
            "framework": "vllm",
            "flag": "--tokenizer-mode",
            "meaning": f"Python's own AttributeError: the {cls} object has no attribute {attr!r}; {cls} is "
            f"the tokenizer vLLM builds for --tokenizer-mode {mode} (by the name; the modes each release "
            f"registers, read from its wheel), and the code on this path reads .{attr}, which that tokenizer "
            "does not have: a checkpoint or feature made for the Hugging Face tokenizer",
            "fix": f"a launch without --tokenizer-mode {mode} (auto) builds the Hugging Face tokenizer; or a "
            f"checkpoint in the format --tokenizer-mode {mode} is made for",
            "basis": "assumed",
        }
    named = _flag_named_like(cls, framework)
    if named is not None:
        fw, flag = named
        built = f"{cls} is the object {_NAME[fw]} builds from {flag} (by the name)"
        if attr in MAPPING_METHODS:
            built += (
                f", and .{attr} is a dict's method: the code took it for the JSON object {flag} was given, "
                "while the value had already been built into the object"
            )
        return {
            **found,
            "framework": fw,
            "flag": flag,
            "meaning": f"Python's own AttributeError: the {cls} object has no attribute {attr!r}; {built}; "
            f"{either}",
            "fix": fix + f"; a launch without {flag} does not build that object",
            "basis": "assumed",
        }
    family = _model_family(cls, version) if framework != "sglang" else None
    if family is not None:
        said, first, older = family
        upgrade = f"run vLLM {first} or later (with the transformers release it requires)"
        if older:
            meaning = (
                f"{said}, and {version} is older: it does not know the model, and its code reads fields of "
                "the configuration where the new class does not keep them"
            )
            return {
                **found,
                "meaning": f"Python's own AttributeError: {meaning}",
                "fix": upgrade,
                "basis": "assumed",
            }
        return {
            **found,
            "meaning": f"Python's own AttributeError: the {cls} object has no attribute {attr!r}; {said}: "
            f"a vLLM older than {first} does not know the model; with one that does, {either}",
            "fix": f"if the running vLLM is older than {first}: {upgrade}; else {fix}",
            "basis": "assumed",
        }
    if frame is not None and frame[0] in ("sglang", "vllm") and _model_code_reads_config(cls, frame[1]):
        # vllm#45039: gemma4_unified.py reads vision_config.num_soft_tokens, which the QAT export of
        # gemma-4-12B-it dropped from its config.json (vllm PR#45070 then fell back to 280)
        return {
            **found,
            "meaning": f"Python's own AttributeError: the {cls} object has no attribute {attr!r}; {cls} is "
            f"the model's configuration as read from its config.json (or one of its sub-configs), and the "
            f"release's model code ({frame[1]}) reads {attr!r} from it: this checkpoint's config.json does "
            "not have that key (an export of the model without it), or the transformers release that parsed "
            "it does not fill it",
            "fix": f"a checkpoint whose config.json has {attr!r} (the model maker's own export), a server "
            "release that does not require it, or the key added at launch with the value the model maker's "
            "config gives (vLLM: --hf-overrides, SGLang: --json-model-override-args)",
            "basis": "assumed",
        }
    if frame is not None:
        package, where = frame
        if package in ("sglang", "vllm"):
            either = (
                f"the traceback's innermost frame is {_NAME[package]}'s own code ({where}): the release "
                f"reads "
                f"{cls}.{attr} where {cls} has none on this path (a bug of the release), or {cls} comes from "
                "a package release it was not made for"
            )
            fix = (
                f"a {_NAME[package]} release without the bug (its issues), or the release of the package "
                f"defining {cls} that it requires"
            )
        else:
            either = (
                f"the traceback's innermost frame is {package}'s code ({where}), not SGLang's or vLLM's: "
                f"{package} reads {cls}.{attr}, which this {cls} does not have (a {package} release made for "
                f"another release of the server or of the package defining {cls}, or {package}'s bug)"
            )
            fix = (
                f"a {package} release made for the installed server (its requirements name them), the server "
                f"release {package} supports, or the server without {package}"
            )
    return {
        **found,
        "meaning": f"Python's own AttributeError: the {cls} object has no attribute {attr!r}; {cls} is not "
        "the server's argument object (ServerArgs, EngineArgs, argparse's Namespace), so no launch flag is "
        f"named by it; {either}",
        "fix": fix,
        "basis": "assumed",
    }


def _model_code_reads_config(cls: str, where: str) -> bool:
    """A configuration class of a model (``Gemma4UnifiedVisionConfig``; not the frameworks' own
    ``ModelConfig``, ``VllmConfig``) read in the server's model code (``.../models/*.py``)."""
    own = cls in ("ModelConfig", "VllmConfig", "PretrainedConfig", "PreTrainedConfig")
    return (
        bool(re.fullmatch(r"[A-Z]\w*Config", cls)) and not own and bool(re.search(r"/models/\w+\.py", where))
    )


_TRACE_FRAME = re.compile(r'File "([^"\n]+?\.py)", line (\d+), in ([\w.<>]+)')


def innermost_frame(text: str) -> tuple[str, str] | None:
    """The package of a traceback's innermost frame and ``file:line, in function``: the directory after
    site-packages/dist-packages, else (a source checkout) ``sglang``/``vllm`` when the path holds one, else
    the file's own directory (lmcache-vllm#54's ``.../lmcache_vllm/vllm_injection.py``). None without a
    frame."""
    frames = _TRACE_FRAME.findall(text)
    if not frames:
        return None
    path, line, function = frames[-1]
    parts = re.split(r"[/\\]", path)
    installed = [i for i, p in enumerate(parts) if p in ("site-packages", "dist-packages")]
    if installed and installed[-1] + 1 < len(parts):
        package = parts[installed[-1] + 1].removesuffix(".py")
        rel = "/".join(parts[installed[-1] + 1 :])
    else:
        own = [p for p in parts[:-1] if p in ("sglang", "vllm")]
        top = len(parts) - 2
        # up from the file's directory through package-like names (FastChat's .../FastChat/fastchat/serve/:
        # fastchat), at most three, stopping at a checkout's or a system's own directories
        while (
            top > 0
            and len(parts) - 2 - top < 2
            and re.fullmatch(r"[a-z_][a-z0-9_]*", parts[top - 1])
            and parts[top - 1] not in _ROOTS
        ):
            top -= 1
        package = own[-1] if own else (parts[top] if top >= 0 else parts[-1].removesuffix(".py"))
        rel = "/".join(parts[max(top, 0) :]) if not own else "/".join(parts[-2:])
    return package, f"{rel}:{line}, in {function}"


# directories a source checkout or a system puts above a package, never a package of its own
_ROOTS = frozenset(
    {"src", "lib", "lib64", "python", "home", "usr", "opt", "root", "app", "apps", "workspace", "code", "tmp"}
)


def _model_family(cls: str, version: str | None) -> tuple[str, str, bool] | None:
    """For transformers' configuration class of a model family (``Gemma3Config``: its model classes are
    ``Gemma3For...``, transformers' naming), the vLLM releases that register a class of that family
    (data/model_caps/vllm.json.gz, scripts/gen_model_caps.py): a vLLM older than the first of them does not
    know the model, and its generic code reads fields the new configuration keeps elsewhere (vllm#14687:
    Gemma3Config keeps vocab_size in its text_config, and vLLM 0.7.3 read it from the top). ``(what the
    table says, the first release, whether the named release is older)``; None when no registered
    architecture is of the family, every covered release registers one (its age says nothing), or the
    named release registers one."""
    if not re.fullmatch(r"[A-Z][A-Za-z0-9]*Config", cls) or cls in ("PretrainedConfig", "PreTrainedConfig"):
        return None
    from argtrace.frameworks.model_caps import architectures, history, releases
    from argtrace.frameworks.schema import version_key

    stem = cls[: -len("Config")]
    archs = sorted(a for a in architectures("vllm") if a.startswith(stem + "For"))
    order = releases("vllm")
    having = sorted({v for a in archs for v, _ in history("vllm", a)}, key=order.index)
    if not having or having[0] == order[0]:
        return None
    first = having[0]
    said = (
        f"{cls} is transformers' configuration of the {stem} models, whose classes ({', '.join(archs)}) "
        f"vLLM registers from {first} on among the bundled releases"
    )
    if version is not None and re.fullmatch(r"\d+(\.\d+)+(\.post\d+)?", version):
        if version_key(version) >= version_key(first):
            return None
        return said, first, True
    return said, first, False


def origin_of_attribute(text: str) -> dict[str, str] | None:
    """``why``'s ``origin`` entry for Python's AttributeError: the interpreter, by its wording."""
    m = ATTRIBUTE_FORM.search(text)
    if m is None or in_teardown_after_error(text, m.start()):
        return None
    return {
        "origin": f"Python's interpreter: code read the attribute {m.group('attr')}, which the "
        f"{m.group('cls') or m.group('bare')} object does not have",
        "basis": "wording",
        "evidence": m.group(0),
        "source": "CPython's AttributeError message (Objects/object.c, PyObject_GenericGetAttr)",
    }


# the functions a process runs while it goes down after an error: an object the error left half-built lacks
# what they read (vllm#32222: the NixlConnector's shutdown after "NIXL is not available" in its __init__)
_TEARDOWN = re.compile(r"(?:\w+\.)*(?:shutdown|close|cleanup|_cleanup|__del__|__exit__|destroy)\w*")
_EXCEPTION_LINE = re.compile(r"\b[A-Z]\w*(?:Error|Exception): \S")


def in_teardown_after_error(text: str, at: int) -> bool:
    """Whether the AttributeError at ``at`` was raised in a teardown function (its innermost frame's:
    ``shutdown``, ``close``, ``__del__``...) after another exception line earlier in the text: the aftermath
    of that first error, not its cause."""
    frames = _TRACE_FRAME.findall(text[:at])
    if not frames or not _TEARDOWN.fullmatch(frames[-1][2]):
        return False
    return any(e.start() < at for e in _EXCEPTION_LINE.finditer(text) if "AttributeError" not in e.group(0))


def _literal_words(message: str) -> set[str]:
    """The words a site's message template prints itself: placeholders (``{expr}``) taken out."""
    return {w.lower() for w in re.findall(r"[A-Za-z]+", re.sub(r"\{[^{}]*\}", " ", message))}


def keep_class_sites(
    groups: Sequence[dict[str, Any]], cls: str | None, module: str | None = None
) -> list[dict[str, Any]]:
    """The sites that can have raised Python's AttributeError on ``cls``: a site printing only Python's words
    (a ``__getattr__`` whose class is a placeholder) only when it is ``cls``'s own. On a module (``module``):
    a module-level ``__getattr__`` printing Python's words only when it is that module's own."""
    kept = []
    for g in groups:
        words = _literal_words(str(g.get("message") or ""))
        if module is not None:
            own = _dotted(str(g.get("file") or ""))
            if words and words <= PYTHON_WORDS | {"module"} and own != module:
                continue  # sglang#9780: server_args.py's own ``__getattr__`` for deep_gemm_wrapper's name
            kept.append(g)
            continue
        owner = str(g.get("function") or "").split(".")[0]
        if words and words <= PYTHON_WORDS and owner != cls:
            continue
        kept.append(g)
    return kept


# CPython's message for a module's missing name (Objects/moduleobject.c, module_getattro: "module '%U' has
# no attribute '%U'"; 3.10+ may add "Did you mean: 'x'?"), a module of the frameworks' own packages
MODULE_FORM = re.compile(
    r"(?<![\w.])module ['‘’](?P<module>(?:sglang|vllm)(?:\.\w{1,200}+){1,20}+)['‘’] has no attribute "
    r"['‘’](?P<attr>[A-Za-z_]\w{0,200}+)['‘’]?(?:\. Did you mean: ['‘’](?P<near>\w{1,200}+)['‘’]\?)?"
)


def _dotted(file: str) -> str:
    """A site's module as Python names it (``sglang/srt/server_args.py``: ``sglang.srt.server_args``)."""
    path = file.replace("\\", "/").removesuffix(".py").removesuffix("/__init__")
    return path.replace("/", ".")


def _module_attribute(text: str) -> dict[str, Any] | None:
    """Python's AttributeError on one of the frameworks' own modules; None without one. No framework writes
    these words and no setting reads them: the code calling the module and the module disagree."""
    m = MODULE_FORM.search(text)
    if m is None:
        return None
    module, attr, near = m.group("module"), m.group("attr"), m.group("near")
    renamed = f" (Python's guess: the module has {near!r}, a name of another revision)" if near else ""
    return {
        "class": None,
        "module": module,
        "attribute": attr,
        "evidence": m.group(0),
        "meaning": f"Python's own AttributeError: the framework's module {module} has no name {attr!r}"
        f"{renamed}, which another of its modules calls: the calling code and the module come from "
        "different revisions (a source tree updated or patched in part, an editable install over another "
        "release's files, a plugin written for another release), or that release carries the mismatch "
        "itself (its bug); no launch setting changes it",
        "fix": "reinstall the framework so that all its files come from one release; if a clean install of "
        "that release raises it too, move to a release where the caller and the module agree",
    }


def render_attribute(section: Mapping[str, Any]) -> list[str]:
    found = section.get("attribute")
    if not found:
        return []
    return [f"python: {found['meaning']}", f"  fix: {found['fix']}"]
