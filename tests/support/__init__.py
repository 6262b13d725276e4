"""The one home of the test helpers: every suite imports what it shares from here, never
from another test module or a conftest (`tests/test_architecture.py` checks it).

- `fixtures`: fixtures for every suite (registered by the root conftest's `pytest_plugins`);
- `pages`: what a response is, executable markup, signing in;
- `workspaces`, `bundles`, `xss`: data to import; `folders`: Agent Skills folders and zips
  of them (a real-shaped skills repository); `routes`: every route with its path filled;
- `sweep`, `runs`: hostile values and character runs;
- `server`, `browser`: the app on a free port, and Playwright helpers;
- `waiting`: waiting for a condition; `pipeline`: building and reading pipeline dataclasses;
- `junit-10.xsd`: the Jenkins xUnit plugin's JUnit schema (MIT), which JUnit files must pass.
"""
