"""Exact player ratings and floor analytics, from every recorded bet and decision."""
