"""The speed figures docs/performance.md records; run `make bench` or `python -m benchmarks`.

Not part of the installed package: these modules use only `webapp`'s public modules
(`webapp.pipeline`, `webapp.app.create_app`, `webapp.store`, `webapp.schema.db`).
"""
