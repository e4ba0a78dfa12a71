"""A library's error raised beneath a framework's frame: what raised it, where the server's code met it.

SGLang and vLLM load models through transformers, run kernels through Triton and FlashInfer, and report what
those raise through their own wrappers ("Scheduler hit an exception", "EngineCore failed to start."): the
framework frame is where the error surfaced, the library's frame (or, when the copy cuts the frames, the
module its exception class lives in: ``triton.runtime.errors.OutOfResources``) is what failed, and the
library's message often says what to do ("Reducing block sizes or `num_stages` may help."). This module reads
that from a traceback's text: one Python traceback, chained ones ("During handling of the above exception"),
or a copy whose newlines a viewer turned into spaces (MinerU#2658): frames and exception lines are found
anywhere in the text, in order. The log layer (findings.py) and ``argtrace why`` (why.py) both use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `File "PATH", line N, in FUNC`, anywhere in the text (a flattened copy holds several on one line)
_FRAME = re.compile(r'\bFile "(?P<path>[^"]{1,500})", line (?P<line>\d+), in (?P<func>[\w.<>]{1,200})')
# an exception line: a class (its module's dotted path or not), ": ", its message up to the line's end or to a
# run of two spaces (a flattened copy's line break); "Error"/"Exception" classes and Triton's OutOfResources
_EXCEPTION = re.compile(
    r"(?<![\w.])(?P<cls>(?:[a-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception)|OutOfResources))"
    r"(?::[ \t]*(?P<msg>[^\n]*?))?"
    r"(?= {2}|[ \t]*$|[ \t]*\n)",
    re.M,
)
# the installed package a frame's file belongs to; a checkout's path names the framework's own directory
_PACKAGE = re.compile(r"(?:site|dist)-packages/(?P<pkg>[A-Za-z_]\w*)/")
_CHECKOUT = re.compile(r"/(?P<pkg>sglang|vllm)/")
FRAMEWORKS = {"sglang": "SGLang", "vllm": "vLLM", "vllm_ascend": "vLLM"}
# packages a framework's call passes through without raising anything of their own: torch's module call
# plumbing, the interpreter's libraries (their frames are not what failed)
_PLUMBING = re.compile(r"torch/(?:nn/modules/module|utils/_contextlib|_dynamo/eval_frame)\.py$")
# a sentence of a library's message that says what to do
_ADVICE = re.compile(
    r"\b(?:may help|try|please|consider|make sure|upgrade|install|reduc\w+|increas\w+|set \w+|use \w+)\b",
    re.I,
)


@dataclass(frozen=True)
class Frame:
    """One ``File "PATH", line N, in FUNCTION`` frame of a traceback, with the top-level package its path
    lies in (``transformers``, ``vllm``), or None when the path names none."""

    path: str
    line: int
    function: str
    package: str | None

    def where(self) -> str:
        """``package/…/file.py:LINE in FUNCTION``: the path from its package on."""
        start = self.path.find(f"/{self.package}/") if self.package else -1
        short = self.path[start + 1 :] if start >= 0 else self.path.rsplit("/", 1)[-1]
        return f"{short}:{self.line} in {self.function}"


@dataclass(frozen=True)
class KnownRaise:
    """A library's raise site whose meaning for a server the message alone does not say (cited)."""

    library: str
    file: str  # the end of the frame's path
    function: str
    exception: str  # the class, unqualified; "" for any (or a traceback cut before it)
    meaning: str
    fix: str
    source: str


# Keyed on the library's frame, not on any report's words.
KNOWN_RAISES: tuple[KnownRaise, ...] = (
    KnownRaise(
        "transformers",
        "models/auto/configuration_auto.py",
        "__getitem__",
        "KeyError",
        "transformers' CONFIG_MAPPING does not register the model_type the checkpoint's config.json names "
        "(AutoConfig.from_pretrained looks it up there)",
        "Run a transformers release that knows this model_type, or load the code that registers it: the "
        "model's own package or launcher (a model shipped with its own server registers its config class "
        "before starting SGLang/vLLM), or the repo's remote code with --trust-remote-code",
        "https://github.com/huggingface/transformers/blob/v4.52.4/src/transformers/models/auto/"
        "configuration_auto.py (_LazyConfigMapping.__getitem__: raise KeyError(key); "
        "AutoConfig.from_pretrained: config_class = CONFIG_MAPPING[config_dict['model_type']])",
    ),
    KnownRaise(
        "flashinfer",
        ".py",
        "build_and_load",
        "",
        "FlashInfer compiles this kernel when it is first used (JIT) with the CUDA toolkit it finds, for "
        "this GPU's architecture",
        "Check that the CUDA toolkit FlashInfer builds with (nvcc, CUDA_HOME) supports this GPU's "
        "architecture, or install FlashInfer's prebuilt kernels (flashinfer-jit-cache / flashinfer-cubin "
        "of the same release), or pick another attention backend",
        "https://github.com/flashinfer-ai/flashinfer/blob/v0.2.8/flashinfer/jit/core.py "
        "(JitSpec.build_and_load: build() runs ninja with nvcc, then loads the module)",
    ),
)


@dataclass(frozen=True)
class Beneath:
    """A library's error under a framework's frame: ``library`` raised ``exception`` (``""``: the copy cuts
    it) at ``raised`` (None: only its class names the library), met at the framework frame ``surfaced``."""

    library: str
    exception: str
    raised: Frame | None
    surfaced: Frame
    framework: str
    known: KnownRaise | None
    advice: str

    @property
    def fix(self) -> str | None:
        """What to do: the known raise site's fix, else the library message's own advice."""
        if self.known is not None:
            return self.known.fix
        return f"{self.library}'s message says: {self.advice}" if self.advice else None

    def sentence(self) -> str:
        """One sentence naming the cause and where it surfaced."""
        at = f" in {self.raised.where()}" if self.raised is not None else ""
        what = f"raised {self.exception}" if self.exception else "was running (the exception is cut)"
        meaning = f" ({self.known.meaning})" if self.known is not None else ""
        return (
            f"{self.library} {what}{at}, beneath {FRAMEWORKS[self.framework]}'s frame "
            f"{self.surfaced.where()}, where it surfaced{meaning}"
        )


def _package(path: str) -> str | None:
    m = _PACKAGE.search(path) or _CHECKOUT.search(path)
    return m.group("pkg") if m else None


def _frames(text: str) -> list[tuple[int, Frame]]:
    return [
        (m.start(), Frame(m.group("path"), int(m.group("line")), m.group("func"), _package(m.group("path"))))
        for m in _FRAME.finditer(text)
    ]


def _advice(message: str) -> str:
    sentences = re.split(r"(?<=[.!?])\s+", message.strip())
    return " ".join(s for s in sentences if _ADVICE.search(s))


def _known(library: str, frame: Frame | None, cls: str) -> KnownRaise | None:
    for known in KNOWN_RAISES:
        if (
            known.library == library
            and frame is not None
            and frame.path.endswith(known.file)
            and frame.function == known.function
            and known.exception in ("", cls)
        ):
            return known
    return None


def beneath(text: str) -> Beneath | None:
    """The first library error of ``text`` raised beneath (or met by) a framework frame; None when the text
    holds no framework frame or the innermost frames are the framework's own with no library's exception."""
    frames = _frames(text)
    framed = [(o, f) for o, f in frames if f.package in FRAMEWORKS]
    if not framed:
        return None
    excs = [(m.start(), m.group("cls"), (m.group("msg") or "").strip()) for m in _EXCEPTION.finditer(text)]
    # each traceback: the frames up to its exception line (the last one: frames after every exception line,
    # a copy cut before its own)
    bounds = [o for o, _c, _m in excs] + [len(text)]
    start = 0
    for end in bounds:
        mine = [f for o, f in frames if start <= o < end]
        exc = next(((c, m) for o, c, m in excs if o == end), None)
        start = end + 1
        if not mine and exc is None:
            continue
        own = [f for f in mine if f.package and f.package not in FRAMEWORKS and not _PLUMBING.search(f.path)]
        deepest = mine[-1] if mine else None
        raised = deepest if deepest is not None and deepest in own else None
        cls, msg = exc if exc is not None else ("", "")
        top = cls.split(".", 1)[0] if "." in cls else ""
        library = raised.package if raised is not None else (top if top and top not in FRAMEWORKS else None)
        if library is None or (raised is None and exc is None):
            continue
        # where it surfaced: the deepest framework frame above the library's in this traceback, else the
        # framework's last frame in the text (a chained traceback: the framework's handler comes after)
        above = [f for f in mine if f.package in FRAMEWORKS]
        surfaced = above[-1] if above else framed[-1][1]
        assert surfaced.package is not None
        name = cls.rsplit(".", 1)[-1]
        exception = f"{name}: {msg}" if msg else name
        return Beneath(
            library=str(library),
            exception=exception,
            raised=raised,
            surfaced=surfaced,
            framework=surfaced.package,
            known=_known(str(library), raised, name),
            advice=_advice(msg),
        )
    return None
