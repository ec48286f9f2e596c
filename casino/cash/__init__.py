"""Cash compliance (31 CFR 1021.313, API.md "Credit and cash compliance"): the one definition of a
player's cash in and cash out per gaming day, the multiple-transaction log, currency transaction
reports and the identification a large cash transaction needs. See docs/cash.md."""
