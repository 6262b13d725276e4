"""Bounds on the server's own resources, for every layer above the pipeline: untrusted work
in worker processes killed at a deadline (`deadlines`, docs/bounds.md) and the bounded
least-recently-used cache every cache outside the pipeline is (`lru`)."""
