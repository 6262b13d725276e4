"""The demo workspace a fresh database starts with: Simon, and Relay Watch.

`simon.json` is the seed design's Simon agent; `relay_watch.json` shows the rest of
what the editor can do (a cron scenario with its triggering event, admin notes,
relays and DM history tools, a template-section skill with `skip_if_empty`, and a
variable name with a typo that the diagnostics catch).
"""

from .seed import DEMO_BUNDLES, seed_demo

__all__ = ["DEMO_BUNDLES", "seed_demo"]
