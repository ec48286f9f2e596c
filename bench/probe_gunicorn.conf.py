"""deploy/gunicorn.conf.py as it is, plus ``bench.cpu_probe``'s hooks timing each request's CPU."""

import runpy
from pathlib import Path

from bench.cpu_probe import post_request, pre_request

DEPLOYED = Path(__file__).resolve().parent.parent / "deploy" / "gunicorn.conf.py"
globals().update((k, v) for k, v in runpy.run_path(str(DEPLOYED)).items() if not k.startswith("__"))
__all__ = ["post_request", "pre_request"]
