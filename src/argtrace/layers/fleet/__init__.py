"""``argtrace fleet``: what each running replica got, and the settings the replicas disagree on.

A replica is one running server, read from one target kind:

- ``urls.py``: ``--url URL``, the server's own endpoints as ``argtrace live`` reads them (``/server_info``,
  vLLM's ``/version``, ``/v1/models``, ``/metrics``): the values it resolved;
- ``hosts.py``: ``--host [USER@]HOST``, the server processes of a node over ssh, as ``--host ps`` finds them:
  their argv, parsed by the framework's parser (given values and the parser's defaults);
- ``kube.py``: ``--kube -l SELECTOR``, pods through the Kubernetes API (official ``kubernetes`` client,
  imported only there): each container's command as the transport layer reads a manifest, the image, and
  the image digest the kubelet reports in the pod's status.

``analysis.py`` groups the replicas by framework, model and role and compares them (pure: no I/O);
``parallel.py`` reads many targets at once, bounded in count and time; ``read.py`` ties them together.
``commands/fleet.py`` reads the launch file of ``--intent`` with ``check``'s own pipeline.
"""
