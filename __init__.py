"""Pitwall: write, run and study the rules of racing board games."""

__version__ = "0.1.0"
