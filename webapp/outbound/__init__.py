"""Talking to the outside world: which addresses the server may reach (`addresses`).

Webhook deliveries and Nostr relays both reach addresses that users name; the rule of
which they may reach is written once, here, and used by both at add time and at each try.
"""

from .addresses import ALLOW_PRIVATE, address_problem, numeric_host, private_allowed

__all__ = ["ALLOW_PRIVATE", "address_problem", "numeric_host", "private_allowed"]
