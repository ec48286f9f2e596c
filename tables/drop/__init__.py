"""The drop and the count: cash a table takes goes into its drop box; the count team removes and
counts the boxes, and the cage takes the cash (API.md "The drop and the count")."""
