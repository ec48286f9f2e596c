"""gunicorn's defaults plus ``bench.cpu_probe``'s hooks: ``bench/run-rounds`` sets the rest on its
command line and reads each request's CPU, so a Faro action's is told apart from a round start's."""

from bench.cpu_probe import post_request, pre_request

__all__ = ["post_request", "pre_request"]
