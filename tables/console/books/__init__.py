"""The pit's books on screen: the dealer's count of the tray on a chip grid, the slips waiting
for a pit boss's or a cashier's signature, and signing one with the signer's own password."""
