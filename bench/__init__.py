"""Benchmarks: scripts that print numbers, not tests. See bench/README.md."""
