"""A shell variable that reaches the server as text inside a flag's value (PA060).

``--kv-transfer-config '{"engine_id": "$MOONCAKE_ENGINE_ID"}'``: single quotes keep the ``$`` as written (and
so does an exec-form argument list, a YAML list item, a Python list), so the parser gets the name, not the
value. Neither framework expands environment variables in its flags' values afterwards: no
``os.path.expandvars`` (nor ``string.Template``) in the code of vllm 0.33.0 or sglang 0.5.23, only
``expanduser`` for a few paths. Said only when the launch's environment sets the variable: that is the
evidence that the value was meant (a ``$`` in a regex, a template or a price is left alone).
"""

from __future__ import annotations

import re

from argtrace.layers.parser.context import ParseContext
from argtrace.redact import is_secret_flag

# $NAME or ${NAME}; not $1, $@, $( (a Kubernetes $(VAR) is the manifest layer's)
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _expanded(ctx: ParseContext, index: int) -> bool:
    """The word was made by expanding a variable (``--served-model-name "$NAME"`` whose value holds a ``$``,
    the ssh tests' ``node-side 'value' $HOME``): the text is the variable's value, not a name as written."""
    args = ctx.server.server_args
    return 0 <= index < len(args) and "$" in (args[index].origin.expansion or "")


def _a_name_on_disk(value: str) -> bool:
    """An absolute path whose part up to the first ``$NAME`` component exists on the machine the check reads
    (``--host``: the node): the ``$`` is in a file's or directory's real name, written as it is (the ssh
    tests' ``node dir 'q' $X``), not a variable left unexpanded."""
    match = _VARIABLE.search(value)
    if not value.startswith("/") or match is None:
        return False
    end = value.find("/", match.end())
    from argtrace.remote.host import HostError, current_host

    try:
        return current_host().stat(value if end < 0 else value[:end]).exists
    except (HostError, OSError, ValueError):
        return False


def literal_variables(ctx: ParseContext) -> None:
    env = ctx.server.env
    if not env:
        return
    flag: str | None = None
    for i, tok in enumerate(ctx.tokens):
        text = tok.text
        if text is None:
            flag = None
            continue
        if text.startswith("-") and not text[1:2].isdigit():
            name, eq, value = text.partition("=")
            if not eq:
                flag = name
                continue
            owner: str | None = name
        else:
            owner, value, flag = flag, text, None
        if owner is None or is_secret_flag(owner) or ctx.secret_word(i):
            continue
        names = []
        for match in _VARIABLE.finditer(value):
            variable = match.group(1) or match.group(2)
            if variable in env and variable not in names:
                names.append(variable)
        if not names or _a_name_on_disk(value) or _expanded(ctx, i):
            continue
        shown = ", ".join(f"${n}" for n in names)
        origin = env[names[0]].origin.at
        ctx.add(
            ctx.rules.PA_LITERAL_VARIABLE,
            f"{owner}: the value holds {shown} as written: the word was single-quoted (or passed without a "
            f"shell), so nothing expanded it, and {ctx.schema.label} does not expand environment variables "
            f"in its flags, so the server gets the text {shown}, not the value the launch sets"
            + (f" ({origin})" if origin else ""),
            at=ctx.at(i),
            fix=f"let the shell expand ${names[0]}: end the single quotes before it and start them again "
            f"after it, writing it in double quotes ('...'\"${names[0]}\"'...'), or build the value in a "
            "variable first",
        )
