"""A simulated gaming day, driven through the same services as the console and the API."""
