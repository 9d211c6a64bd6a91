"""Spies & Lies table companion: a referee (``companion.engine``) and the web table."""

__version__ = "0.1.0"
