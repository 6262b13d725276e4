"""`python -m benchmarks [--quick] [--no-web]`: print every section's figures as one table."""

from __future__ import annotations

import argparse
import os
import platform
from collections.abc import Callable

from .caches import cache_rows
from .context_tests import tests_rows
from .json_markdown import json_rows
from .nostr import nostr_rows
from .pipeline import Row, pipeline_rows
from .pool import pool_rows
from .worst_case import worst_case_rows


def machine() -> str:
    """The architecture, core count, Python version and system the figures come from."""
    return (f"{platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, {platform.system()}")


def run(quick: bool = False, web: bool = True, echo: Callable[[str], None] = print) -> None:
    """Print the machine line, then the pipeline, caches and JSON rows, and (unless `web` is false)
    the web and worst-case rows."""
    echo(f"machine: {machine()}")
    # The caches' rows need workspaces of thousands of skills: not in a quick run.
    rows: list[Row] = pipeline_rows(quick) + ([] if quick else cache_rows()) + json_rows(quick)
    rows += tests_rows(quick)
    rows += nostr_rows(quick)
    if web:
        # Flask and SQLAlchemy are loaded only when the web section runs.
        from .web import web_rows

        rows += web_rows(quick=quick)
        rows += pool_rows(quick=quick)
        # The worst case ends with a preview request, so it runs with the web section.
        rows += worst_case_rows(quick=quick)
        # What a keystroke costs in the browser (chromium through Playwright).
        from .browser import browser_rows

        rows += browser_rows(quick=quick)
    width = max(len(r[0]) for r in rows)
    echo(f"{'figure'.ljust(width)}  {'measured':>12}  target")
    for figure, measured, target in rows:
        echo(f"{figure.ljust(width)}  {measured:>12}  {target}")


def main(argv: list[str] | None = None) -> None:
    """Parse the flags and print the table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description="Print the speed figures docs/performance.md "
                                                 "records.")
    parser.add_argument("--quick", action="store_true",
                        help="fewer repetitions and smaller inputs (for tests)")
    parser.add_argument("--web", action=argparse.BooleanOptionalAction, default=True,
                        help="include the web section (default: yes)")
    args = parser.parse_args(argv)
    run(quick=args.quick, web=args.web)


if __name__ == "__main__":
    main()
