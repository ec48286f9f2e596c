"""A player's own page: balance, history and ratings."""
