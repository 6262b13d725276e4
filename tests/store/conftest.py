"""Fixtures for the storage tests: bundles with every key, and a small stored agent."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.support.bundles import FULL_BUNDLE
from webapp import store


@pytest.fixture
def full_bundle() -> dict[str, Any]:
    """A deep copy of `FULL_BUNDLE`: a bundle with every key and many kinds of values."""
    return copy.deepcopy(FULL_BUNDLE)


@pytest.fixture
def agent(session) -> str:
    """An agent `demo` with skills `intro` (layer 2), `chat` (uses `{{intro}}`) and `other`."""
    store.create_agent(session, "demo")
    store.create_skill(session, "demo", "intro", content="I am intro.\n", layer=2, name="Intro")
    store.create_skill(session, "demo", "chat", name="Chat", triggers=["dm"],
                       content="system:\n{{intro}}\n\nuser:\n{{message}}\n")
    store.create_skill(session, "demo", "other", content="Other {{ intro }} text.\n",
                       triggers=["dm"])
    return "demo"
