"""Warm start: a command served by a process that has already imported argtrace (issue 18).

A short ``argtrace check`` spends about two thirds of its CPU importing argtrace and the standard library
before it reads the script. The ``argtrace`` launcher (``bin/argtrace``) therefore first asks a warm
process of the same interpreter, code and settings to run the command; when there is none, the command
runs in the launcher as before, and the launcher then starts one in the background for the next command.
The pattern is sccache's, Gradle's and Bazel's (a server the client starts on demand, which exits when
idle); argtrace's differs in one way that matters for trust: **no command runs in the warm process
itself**. It only imports modules, then forks one fresh child per command, so nothing one check learns
(its secrets, its caches, a file's contents) can reach another.

- :mod:`argtrace.warm.client` (imported by the launcher; the standard library's ``os``, ``sys``,
  ``marshal`` and the C modules ``_socket``/``_signal`` only): whether a command may be served, the
  socket's place, the request, waiting for the child and forwarding signals to it, starting a server.
- :mod:`argtrace.warm.server`: the warm process: imports, listens, forks a child per request, reaps it
  and sends its status back, exits when idle or when argtrace's code changed under it.
- :mod:`argtrace.warm.child`: what a forked child does before it runs the command: the caller's standard
  streams, environment, working directory, umask and arguments in place of the server's.

What is served, and what never is, is :func:`argtrace.warm.client.servable`'s docstring; the user's
view (``ARGTRACE_WARM=0``, ``argtrace``'s processes in ``ps``) is docs/warm.md.
"""
