"""Where ``gettext`` looks for a message catalogue, worked out once per command instead of per message
(issue 18).

``argparse`` passes each of its texts through ``gettext.gettext`` (``_('options')``, ``_('show this help
message and exit')``, its error messages): a ``check`` builds argtrace's own parser and the framework's, 22
calls. Each runs ``gettext.translation``, whose ``gettext.find`` reads ``LANGUAGE``, ``LC_ALL``,
``LC_MESSAGES`` and ``LANG``, normalises every language through ``locale.normalize`` and tests whether a
``.mo`` file exists for each: 6.8 M instructions in a short ``check``, 1.3% (CPython 3.11,
``Lib/gettext.py``: ``find``, ``translation``, ``dgettext``).

While :func:`kept` is active, ``gettext.find`` is a function that answers a call it answered before in this
process from that answer, when the domain, the directory, the languages asked for, ``all`` and those four
variables are all the same (a list answer is copied, the caller may change it). What it rests on: that no
catalogue file appears or disappears while one command runs. Any other call is ``gettext.find`` itself,
and the real function is put back on exit.
"""

from __future__ import annotations

import _thread
import os
from collections.abc import Iterator
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the variables gettext.find reads, in its order (3.10-3.13)
LANGUAGE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
_lock = _thread.allocate_lock()  # threading.Lock, without importing threading
_depth = [0]


class Find:
    """``gettext.find`` with its answers kept by everything they depend on."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.answers: dict[tuple[Any, ...], Any] = {}

    def __call__(self, domain: Any, localedir: Any = None, languages: Any = None, all: Any = False) -> Any:
        try:
            key = (
                domain,
                localedir,
                None if languages is None else tuple(languages),
                all,
                *map(os.environ.get, LANGUAGE_VARIABLES),
            )
            known = self.answers.get(key, self)
        except TypeError:  # something unhashable: not kept
            return self.real(domain, localedir, languages, all)
        if known is self:
            known = self.answers[key] = self._answer(domain, localedir, languages, all)
        return list(known) if isinstance(known, list) else known

    def _answer(self, domain: Any, localedir: Any, languages: Any, all: Any) -> Any:
        """``gettext.find``'s answer. Where the catalogue directory is not a directory, no file under it
        exists, and ``find`` answers ``[]`` (``all``) or None after expanding the languages, which imports
        ``locale`` for ``locale.normalize`` (``_expand_lang``): 3 M instructions of a short check, where
        the interpreter has no ``share/locale`` (pyenv's builds; session 32). So that answer is given
        without the expansion, for the call argparse makes (a text domain, the default or a text directory,
        the environment's languages); any other call, or a directory that exists, is ``find`` itself."""
        texts = isinstance(domain, str) and (localedir is None or isinstance(localedir, str))
        if languages is None and texts:
            import gettext

            # the directory find() reads when given none (3.10-3.13: sys.base_prefix/share/locale)
            where = getattr(gettext, "_default_localedir", None) if localedir is None else localedir
            if isinstance(where, str) and where and not os.path.isdir(where):
                return [] if all else None
        return self.real(domain, localedir, languages, all)


@contextmanager
def kept() -> Iterator[None]:
    """``gettext.find`` keeps its answers inside (nested uses share the outermost one's)."""
    import gettext

    with _lock:
        _depth[0] += 1
        outer = _depth[0] == 1
        real = gettext.find
        if outer:
            gettext.find = Find(real)
    try:
        yield
    finally:
        with _lock:
            _depth[0] -= 1
            if outer:
                gettext.find = real
