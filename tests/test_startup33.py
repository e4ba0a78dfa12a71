"""Start-up cuts of session 33 (cold33): the regex store's words kept packed, the redaction's pure functions
kept per text, and the report walks' dict test before Mapping's ABC check. Each gives what it gave before."""

from __future__ import annotations

import marshal
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from argtrace import redact, regex_code, secret_detection
from argtrace.cache_dirs import with_crc

needs_compiler = pytest.mark.skipif(sys.version_info < (3, 11), reason="Python 3.10 has no re._compiler")

PATTERNS: list[tuple[str | bytes, int]] = [
    (r"--(?P<flag>[a-z][a-z0-9-]*)(?:=(?P<value>\S+))?", 0),
    (r"(?<![\w-])cuda_visible_devices", re.IGNORECASE),
    (r"a*b+?c{2,5}(x|y)*+", 0),
    (rb"\x1b\[[0-9;]*m", 0),
    (r"[ä-ü]\d{300}", re.ASCII),
]


@needs_compiler
def test_a_packed_program_unpacks_to_the_program() -> None:
    large = []
    for text, flags in PATTERNS:
        found = regex_code.program(text, flags)
        kept = regex_code.packed(found)
        assert isinstance(kept[1], bytes) and len(kept[1]) == 4 * len(found[1])
        assert regex_code.unpacked(kept) == found
        large.append(any(word > 0xFFFF for word in found[1]))
    assert large == [True, False, True, True, False]  # an open repeat (*, +) holds MAXREPEAT


@needs_compiler
def test_a_word_that_does_not_fit_is_not_packed() -> None:
    with pytest.raises(ValueError):
        regex_code.packed((0, [1, 2**32], 0, {}, ()))
    with pytest.raises(ValueError):
        regex_code.packed((0, [-1], 0, {}, ()))


@needs_compiler
def test_an_entry_of_another_shape_is_compiled_anew_and_not_written_back(tmp_path: Path) -> None:
    store = tmp_path / "re.marshal"
    good = {  # keys as the store's
        (text, int(flags)): regex_code.packed(regex_code.program(text, flags)) for text, flags in PATTERNS
    }
    flags0, words, groups, groupindex, indexgroup = good[(PATTERNS[0][0], 0)]
    shapes: list[Any] = [
        (flags0, list(regex_code.program(*PATTERNS[0])[1]), groups, groupindex, indexgroup),  # FORMAT 1
        (flags0, words[:-1], groups, groupindex, indexgroup),  # not a multiple of the word
        (flags0, words, groups, groupindex),  # four items
        words,  # not a tuple
        None,
    ]
    for shape in shapes:
        entries = {**good, (PATTERNS[0][0], 0): shape, ("stray", "key"): (1,)}
        store.write_bytes(with_crc(marshal.dumps((regex_code._build(), entries))))
        os.chmod(store, 0o600)
        with regex_code.kept(str(store)) as again:
            re.purge()
            made = [re.compile(text, flags) for text, flags in PATTERNS]
        assert again is not None and list(again.new) == [(PATTERNS[0][0], 0)]
        re.purge()
        assert made == [re.compile(text, flags) for text, flags in PATTERNS]
        assert regex_code._read(str(store)) == good  # the stray entry is not written back


SECRET_TEXTS = [
    "",
    "--api-key sk-abcdefghijklmnopqrstuvwxyz",
    "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123 python3 -m sglang.launch_server",
    "curl -H 'Authorization: Bearer abc.def-ghi' https://user:pw123@host/x",
    "--model-path Qwen/Qwen3-8B --tp 2",
    "--api-key is a vLLM flag",
    "export PASSWORD=$'x\\'y' TOKEN=\"a b\"",
    "ghp_abcdefghijklmnopqrstuvwxyz012345",
]


def test_the_kept_text_functions_answer_as_the_searches() -> None:
    for text in SECRET_TEXTS * 2:  # asked twice: the second answer is the kept one
        assert secret_detection.redact_text(text) == (
            text if not text else secret_detection._redact_text_kept.__wrapped__(text)
        )
        found = secret_detection.secrets_in_text(text)
        assert type(found) is set
        assert found == (set(secret_detection._secrets_in_text_kept.__wrapped__(text)) if text else set())
        found.add("changed")  # the caller's set is its own: the kept answer does not change
        assert "changed" not in secret_detection.secrets_in_text(text)
    assert secret_detection.secrets_in_text(SECRET_TEXTS[1]) == {"sk-abcdefghijklmnopqrstuvwxyz"}
    assert secret_detection.redact_text(SECRET_TEXTS[4]) == SECRET_TEXTS[4]
    for flag in ["--api-key", "--API-KEY=x", "--hf_token", "-api-key", "api-key", "--api-keys", "--tp"]:
        assert secret_detection.is_secret_flag(flag) == secret_detection.is_secret_flag.__wrapped__(flag)
    assert [secret_detection.is_secret_flag(f) for f in ["--API-KEY=x", "api-key", "--api-keys"]] == [
        True,
        False,
        False,
    ]


class _Record(Mapping[str, Any]):
    """A Mapping that is no dict: the walks still take it for one."""

    def __init__(self, **items: Any) -> None:
        self._items = items

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Any:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def test_the_walks_take_every_mapping_for_one_and_the_plain_types_for_none() -> None:
    assert not any(isinstance(kind(), Mapping) for kind in redact._NOT_MAPPINGS)
    for make in (dict, MappingProxyType, lambda d: _Record(**d)):
        report = {
            "settings": [make({"name": "api_key", "flag": "--api-key", "value": "sekrit-value-1"})],
            "argv": ["python3", "--api-key", "sekrit-value-2"],
            "words": [make({"text": "--hf-token"}), make({"text": "sekrit-value-3"})],
            "note": "sekrit-value-1 sekrit-value-2 sekrit-value-3",
            "numbers": [1, 2.5, True, None, (3, 4)],
        }
        redactor = redact.Redactor()
        redactor.learn_data(report)
        assert {"sekrit-value-1", "sekrit-value-2", "sekrit-value-3"} <= redactor.known
        shown = redactor.data(report)
        masks = [secret_detection.mask(f"sekrit-value-{n}") for n in (1, 2, 3)]
        assert shown["settings"][0]["value"] == masks[0]
        assert shown["argv"] == ["python3", "--api-key", masks[1]]
        assert shown["words"][1] == {"text": masks[2]}
        assert shown["note"] == " ".join(masks)
        assert shown["numbers"] == [1, 2.5, True, None, [3, 4]]
