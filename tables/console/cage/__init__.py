"""The cage screen: buy-ins, cash-outs, fills and credits to decide, printable slips."""
