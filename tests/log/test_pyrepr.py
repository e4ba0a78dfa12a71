"""The safe repr reader: literals, non-literals, truncation, and the real dumps in tests/data/logs."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from argtrace.layers.log import pyrepr
from argtrace.layers.log.pyrepr import parse_kw_list, parse_record, parse_value

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"


def _line(name: str, marker: str) -> str:
    for line in (LOGS / name).read_text(encoding="utf-8").splitlines():
        if marker in line:
            return line.split(marker, 1)[1]
    raise AssertionError(f"{marker!r} not in {name}")


def test_literals_and_containers() -> None:
    assert parse_value("'a\\'b'") == "a'b"
    assert parse_value('"x\\ny"') == "x\ny"
    assert parse_value("-1") == -1
    assert parse_value("1e-05") == 1e-05
    assert parse_value("0.002") == 0.002
    assert parse_value("[1, 2, (3,)]") == [1, 2, [3]]
    assert parse_value("{'a': {'b': None}, 'c': True}") == {"a": {"b": None}, "c": True}
    assert parse_value("{}") == {}
    assert parse_value("set()") == {"__class__": "set", "args": []}
    assert math.isnan(parse_value("nan"))
    assert parse_value("inf") == math.inf


def test_non_literals_are_kept_as_text() -> None:
    assert parse_value("<CompilationMode.NONE: 0>") == "CompilationMode.NONE"
    assert parse_value("<DynamicShapesType.BACKED: 'backed'>") == "DynamicShapesType.BACKED"
    assert parse_value("<class 'mineru_vl_utils.logits_processor.X'>") == "mineru_vl_utils.logits_processor.X"
    assert parse_value("torch.bfloat16") == "torch.bfloat16"
    assert parse_value("PosixPath('/models/qwen')") == "/models/qwen"
    assert parse_value("StructuredOutputsConfig(backend='auto', reasoning_parser='')") == {
        "__class__": "StructuredOutputsConfig",
        "backend": "auto",
        "reasoning_parser": "",
    }
    with pytest.raises(ValueError):
        parse_value("import os")
    with pytest.raises(ValueError):
        parse_value("'unterminated")


def test_record_truncated_keeps_complete_pairs() -> None:
    dump = parse_record("ServerArgs(model_path='m', tp_size=8, cuda_graph_bs=[1, 2, 4")
    assert dump.class_name == "ServerArgs"
    assert dump.truncated is True
    assert dump.values == {"model_path": "m", "tp_size": 8}


def test_no_eval_ever() -> None:
    dump = parse_record("ServerArgs(a=__import__('os').system('echo pwned'), b=1)")
    assert dump.values["b"] == 1
    assert dump.values["a"] == "__import__('os').system('echo pwned')"
    assert dump.raw_keys == ["a"]


def test_vllm_config_bare_values() -> None:
    dump = parse_kw_list(
        "model='/m', served_model_name=/home/x/Qwen2-0.5B/, dtype=torch.bfloat16, device_config=cuda, "
        "compilation_config={'mode': <CompilationMode.NONE: 0>}, seed=0"
    )
    assert dump.values == {
        "model": "/m",
        "served_model_name": "/home/x/Qwen2-0.5B/",
        "dtype": "torch.bfloat16",
        "device_config": "cuda",
        "compilation_config": {"mode": "CompilationMode.NONE"},
        "seed": 0,
    }
    assert dump.raw_keys == ["served_model_name"]


def test_real_sglang_058_repr_is_complete() -> None:
    dump = parse_record(_line("sglang_0.5.8_glm5_rocm_repr.log", "server_args="))
    assert dump.class_name == "ServerArgs"
    assert not dump.truncated and not dump.errors and not dump.raw_keys
    assert len(dump.values) == 327
    assert dump.values["model_path"] == "zai-org/GLM-5-FP8"
    assert dump.values["mamba_scheduler_strategy"] == "no_buffer"
    assert dump.values["mem_fraction_static"] == 0.908
    assert dump.values["tp_size"] == 8
    assert dump.values["cuda_graph_bs"][:4] == [1, 2, 4, 8] and dump.values["cuda_graph_bs"][-1] == 512
    assert dump.values["mm_process_config"] == {}
    assert dump.values["forward_hooks"] is None


def test_real_sglang_dict_is_complete() -> None:
    dump = parse_record(_line("sglang_0.5.2x_dsv41_dict.log", "server_args="))
    assert dump.class_name is None and not dump.truncated and not dump.errors
    assert len(dump.values) == 495
    assert dump.values["mamba_radix_cache_strategy"] == "auto"
    assert dump.values["speculative_algorithm"] == "DSPARK"
    assert dump.values["api_key"] == "[REDACTED]"
    assert dump.values["cuda_graph_config"]["decode"]["bs"] == [1, 2, 3, 4]
    assert dump.values["watchdog_timeout"] == 1800.0


def test_real_sglang_04_repr_cut_by_the_report() -> None:
    dump = parse_record(_line("sglang_0.4.4_pr4848_truncated_repr.log", "server_args="))
    assert dump.truncated is True
    assert len(dump.values) == 45
    assert list(dump.values)[-1] == "decode_log_interval"
    assert dump.values["chunked_prefill_size"] == 8192


def test_real_vllm_config_line() -> None:
    dump = parse_kw_list(_line("vllm_0.20_qwen36_mtp.log", "with config: "))
    assert not dump.errors
    assert dump.values["max_seq_len"] == 32768
    assert dump.values["dtype"] == "torch.bfloat16"
    assert dump.values["quantization"] == "modelopt_fp4"
    assert dump.values["served_model_name"] == "qwen3.6-27b-text-nvfp4-mtp"
    assert dump.values["compilation_config"]["cudagraph_mode"] == "CUDAGraphMode.NONE"
    assert dump.values["kernel_config"]["moe_backend"] == "triton"
    assert dump.values["structured_outputs_config"]["reasoning_parser"] == "qwen3"


def test_random_text_never_raises() -> None:
    import random

    rnd = random.Random(1)
    alphabet = "()[]{}<>'\"\\,=:. _-0123456789abcXYZ\n\t#"
    for _ in range(3000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 60)))
        parse_record("ServerArgs(" + text)
        parse_record("{" + text)
        parse_kw_list(text)
        try:
            parse_value(text)
        except ValueError:
            pass
    deep = "ServerArgs(a=" + "[" * 5000 + "]" * 5000 + ", b=1)"
    assert parse_record(deep).values["b"] == 1


def test_the_same_dump_read_again_is_a_dump_of_its_own() -> None:
    # a restart loop logs one arguments line per start; the reader remembers the text it read last, and
    # a caller marking its copy truncated (its log line was cut) must not mark the other starts' copies
    text = "ServerArgs(model_path='/m', tp_size=2, cuda_graph_bs=[1, 2])"
    first, second = parse_record(text, kind="sglang-repr"), parse_record(text, kind="sglang-repr")
    assert first == second and first is not second
    first.truncated = True
    first.values["tp_size"] = 4
    first.errors.append("cut")
    again = parse_record(text, kind="sglang-repr")
    assert (again.truncated, again.values["tp_size"], again.errors) == (False, 2, [])
    assert again.values == {"model_path": "/m", "tp_size": 2, "cuda_graph_bs": [1, 2]}
    config = "model='/m', dtype=torch.bfloat16, served_model_name=x"
    parse_kw_list(config).values["dtype"] = "changed"
    assert parse_kw_list(config).values["dtype"] == "torch.bfloat16"


def _ident_one_at_a_time(self: pyrepr._Reader) -> str:
    """``_Reader.ident`` as it was: a character at a time (session 29 takes the run in one match)."""
    s, n, start = self.s, self.n, self.i
    i = start
    while i < n and (s[i].isalnum() or s[i] in "_."):
        i += 1
    self.i = i
    return s[start:i]


def _string_one_at_a_time(self: pyrepr._Reader) -> str:
    """``_Reader.string`` as it was: a character at a time."""
    raw = False
    while self.s[self.i] in "rbuRBUf":
        raw = raw or self.s[self.i] in "rR"
        self.i += 1
    quote = self.s[self.i]
    triple = self.s.startswith(quote * 3, self.i)
    delim = quote * 3 if triple else quote
    self.i += len(delim)
    out: list[str] = []
    s, n = self.s, self.n
    while True:
        if self.i >= n:
            raise pyrepr._Truncated
        if s.startswith(delim, self.i):
            self.i += len(delim)
            return "".join(out)
        ch = s[self.i]
        if ch == "\\" and not raw:
            if self.i + 1 >= n:
                raise pyrepr._Truncated
            out.append(self._escape())
            continue
        out.append(ch)
        self.i += 1


def _readings(texts: list[str]) -> list[object]:
    out: list[object] = []
    for text in texts:
        pyrepr._parse_record.cache_clear()
        pyrepr._parse_kw_list.cache_clear()
        out.append(parse_record("ServerArgs(" + text))
        out.append(parse_record("{" + text))
        out.append(parse_kw_list(text))
        try:
            out.append(parse_value(text))
        except ValueError as exc:
            out.append(str(exc))
    return out


def test_names_and_strings_read_by_runs_equal_the_character_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    # every character sre's \w takes is one str.isalnum() or "_" takes, and no other
    word = pyrepr._IDENT.compiled
    assert all(
        (word.fullmatch(ch) is not None) == (ch.isalnum() or ch in "_.")
        for ch in map(chr, range(0x110000))
        if not 0xD800 <= ord(ch) < 0xE000
    )
    rnd = random.Random(29)
    alphabet = "()[]{}<>'\"\\,=:. _-0123456789abcXYZrbuRf\n\t#é²٣"
    texts = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 60))) for _ in range(3000)]
    texts += ["'''a'b''c'''", 'r"\\"', "b'\\x4'", "f'x", "u'\\u00e9\\n'", "rb'\\'", '"""a\\"""']
    texts += [_line("vllm_0.20_qwen36_mtp.log", "with config: ")]
    for name in sorted(p.name for p in LOGS.glob("*.log"))[:40]:
        for line in (LOGS / name).read_text(encoding="utf-8", errors="replace").splitlines():
            for marker in ("with config: ", "non-default args: ", "server_args=", "args: Namespace("):
                if marker in line:
                    texts.append(line.split(marker, 1)[1])
    now = _readings(texts)
    monkeypatch.setattr(pyrepr._Reader, "ident", _ident_one_at_a_time)
    monkeypatch.setattr(pyrepr._Reader, "string", _string_one_at_a_time)
    assert _readings(texts) == now
    pyrepr._parse_record.cache_clear()
    pyrepr._parse_kw_list.cache_clear()
