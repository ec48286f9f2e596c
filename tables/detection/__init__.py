"""Cheating-pattern and AML detection: detectors read a gaming day, the service keeps Alert rows."""
