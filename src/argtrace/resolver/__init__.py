"""The resolution layer's machinery: resolver environments (``environments``), the import stubs and fake
GPU shipped into them (``stubs/``), and the scripts run inside them by path (``dump_parser.py``)."""
