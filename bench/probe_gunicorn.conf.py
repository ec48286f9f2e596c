"""deploy/gunicorn.conf.py as it is, plus ``bench.cpu_probe``'s hooks timing each request's CPU."""

import runpy
from pathlib import Path
from typing import Any

from bench import cpu_probe
from bench.cpu_probe import pre_request

DEPLOYED = Path(__file__).resolve().parent.parent / "deploy" / "gunicorn.conf.py"
_deployed = runpy.run_path(str(DEPLOYED))
globals().update((k, v) for k, v in _deployed.items() if not k.startswith("__"))
cpu_probe.watch_lingering()  # in the master: every forked worker inherits it


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    """The request's CPU is read first, then deploy/'s own hook runs (its collection is not the request's)."""
    cpu_probe.post_request(worker, req, environ, resp)
    if "post_request" in _deployed:
        _deployed["post_request"](worker, req, environ, resp)


__all__ = ["post_request", "pre_request"]
