"""The pit's books: the chip set, counts by denomination, and numbered slips people sign."""
