"""The transport layer: how a command reaches the machine that runs it, and ``argtrace --host``.

``host.py``       the Host seam every command reads through (local machine or a node over ssh)
``ssh.py``        the ssh session: fixed remote command, collector over stdin, error classification
``collector.py``  the stdlib-only program that observes a machine (runs remotely and locally)
``collector_files.py``  its file requests and answers' shape (a local check loads only these)
``logseam.py``    the shape of the log reader the log layer hands ``Host.scan_log``
``options.py``    the global ``--host`` / ``--ssh-option`` options for ``cli.py``
"""
