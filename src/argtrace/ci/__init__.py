"""argtrace in CI: what happens to a finished report between the command and the renderer.

``controls.apply_controls`` (called by ``cli``) adds the checked files (``inputs``), drops findings that a
``# argtrace disable=CODE`` comment suppresses (``suppress.py``) and decides the exit status from
``--fail-on``. ``argtrace lint`` (``commands/lint.py``, ``lint.py``) checks a whole tree. docs/ci.md.
"""
