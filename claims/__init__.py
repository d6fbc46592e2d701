"""Claim specs: one package per paper (metadata in its ``__init__``), one module per theorem.

Each module defines ``CLAIMS``, a tuple of :class:`checks.Claim`; discovery finds them by this
convention (no list to keep). Modules starting with ``_`` hold helpers shared by a paper's specs.
``baseline.json`` is the verdict lock the gate compares against; it is produced by a run.
"""
