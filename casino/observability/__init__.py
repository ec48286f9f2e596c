"""Request ids, structured logs, health checks and metrics: how operators see the service."""
