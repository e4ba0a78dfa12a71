"""A schema's variables are read from its records one name at a time (Schema.env_var, issue 18: a check
asks for a few of a release's ~800): the answers equal those of the full ``env_vars`` list, on every
bundled release and on a schema with repeated and odd records. An option's spec is made from its record in
one update of its fields (OptionSpec.from_dict), the same instance its class makes."""

from __future__ import annotations

import pytest

from argtrace.frameworks.schema import Schema, bundled_versions, load_schema


def _assert_same_as_the_full_list(schema: Schema) -> None:
    specs = schema.env_vars
    by_name = {v.name: v for v in specs}  # the last record of a name, as layers/process.py had it
    assert schema.env_var_names == frozenset(v.name for v in specs)
    assert schema.deprecated_env_names == {v.name for v in specs if v.deprecated}
    for name, spec in by_name.items():
        assert schema.env_var(name) == spec
        assert schema.env_var(name, first=True) == next(v for v in specs if v.name == name)
    assert schema.env_var("ARGTRACE_NOT_A_FRAMEWORK_VARIABLE") is None


@pytest.mark.parametrize("framework", ["sglang", "vllm"])
def test_every_bundled_release_answers_as_its_full_list(framework: str) -> None:
    for version in bundled_versions(framework, include_user=False):
        _assert_same_as_the_full_list(load_schema(framework, version))


def test_repeated_unnamed_and_plain_records() -> None:
    schema = Schema(
        "sglang",
        "0.0.0",
        {
            "env_vars": [
                "SGLANG_PLAIN",
                {"name": "SGLANG_TWICE", "type": "int"},
                {"name": ""},  # no name: not a variable
                {"type": "bool"},
                {"name": "SGLANG_TWICE", "type": "bool", "deprecated": True, "replacement": "SGLANG_NEW"},
                {"name": "SGLANG_NEW", "default": "1"},
                7,
            ]
        },
    )
    _assert_same_as_the_full_list(schema)
    last = schema.env_var("SGLANG_TWICE")
    assert last is not None and last.type == "bool" and last.deprecated
    first = schema.env_var("SGLANG_TWICE", first=True)
    assert first is not None and first.type == "int" and not first.deprecated
    assert schema.deprecated_env_names == {"SGLANG_TWICE"}
    assert schema.env_var_names == {"SGLANG_PLAIN", "SGLANG_TWICE", "SGLANG_NEW"}


def test_an_option_spec_from_its_record_is_the_one_its_class_makes() -> None:
    import dataclasses

    from argtrace.frameworks.schema import OptionSpec

    assert not hasattr(OptionSpec, "__post_init__") and not hasattr(OptionSpec, "__slots__")
    for framework in ("sglang", "vllm"):
        for version in bundled_versions(framework, include_user=False)[-3:]:
            for spec in load_schema(framework, version).options:
                made = OptionSpec(**{f.name: getattr(spec, f.name) for f in dataclasses.fields(OptionSpec)})
                assert spec == made
                assert vars(spec) == vars(made)
                with pytest.raises(dataclasses.FrozenInstanceError):
                    spec.dest = "x"  # type: ignore[misc]
