"""Credit play at the table: a player's credit line and the markers drawn on it (API.md "Credit
and cash compliance"; Nevada MICS marker credit play; 25 CFR 543.15)."""
