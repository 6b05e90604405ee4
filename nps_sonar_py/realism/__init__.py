"""Measures of how real a sonar image looks (``metrics``), for ``benchmarks/realism.py``."""
