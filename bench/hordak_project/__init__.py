"""A minimal standalone Django project running django-hordak under .bench-venv (never the project venv)."""
