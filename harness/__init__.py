"""What tests and benchmarks share to drive a real server process (checkout only:
not part of the installed package)."""
