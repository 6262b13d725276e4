"""Talking to the outside world: which addresses the server may reach (`addresses`), the
webhook worker that posts the outbox (`delivery`), the Nostr relay client (`relays`), the
fetching of a Nostr skill's files (`blobs`) and what the Nostr pages and commands share of
them (`nostr_sync`).

Webhook deliveries and Nostr relays both reach addresses that users name; the rule of
which they may reach is written once, here, and used by both at add time and at each try.
Only `addresses` is imported with the package: the store checks URLs with it, and the
other modules read the store (import them by name).
"""

from .addresses import ALLOW_PRIVATE, address_problem, numeric_host, private_allowed

__all__ = ["ALLOW_PRIVATE", "address_problem", "numeric_host", "private_allowed"]
