"""The analysis layers: what each source of evidence (the script, its carriers, the framework's parser and
resolver, processes, logs, endpoints, memory) says about a server start (docs/architecture.md)."""
