"""The pit view: the floor's table cards (shared between polls), their figures, and the pit's decisions."""
