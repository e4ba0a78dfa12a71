"""Fixes that are proven (issue 13): edits computed from the real files, verified by re-checking.

``attach.attach_fixes(report, options)`` gives each finding of a ``check`` report its ``fix_edits`` (from
the real text of the user's script, manifest or ``-c`` command, and of the env and ``--config`` files the
launch reads (``files.py``): ``edits.py``, ``words.py``, ``values.py``, ``flags.py``, ``settings.py``; changes
of the environment the launch inherits: ``environment.py``),
a fix text that names that file, and ``fix_verified`` (``verify.py``). ``argtrace fix``
(``commands/fix.py``) turns the verified edits into a unified diff or writes them (``diff.py``).
"""

# Nothing is imported here: the rule pages read ``registry`` without loading the check machinery.
