"""The screens people work at, Django templates and htmx over the same services as the API.

One package per screen: ``dealer`` (a dealer's tables and the table screen), ``pit`` (the floor
at a glance and what waits for a pit boss), ``cage`` (buy-ins, cash-outs, slips) and ``me`` (a
player's own page). The modules here are what more than one screen uses: sign-in, access checks,
the tap plumbing (``taps``, ``idempotency``), the forms, paths, an action in words (``words``)
and the console's reads.
"""
