"""The dealer console and the pit view: Django templates and htmx over the same services as the API."""
