"""Performance figures of the companion, run from a checkout (not installed with it):
``python -m benchmarks engine | server | pages`` (see docs/PERFORMANCE.md)."""
