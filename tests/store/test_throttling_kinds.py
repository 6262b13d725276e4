"""Wrong API keys and failed sign-ins are throttled apart: a runtime's (or a scanner's)
wrong keys from an address never hold up a person's sign-in from it, and wrong keys from
one address never hold up another address's keys."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from webapp.store.api_keys import THROTTLE_NAME
from webapp.store.throttling import FREE_FAILURES, record_failure, throttled_until

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def test_wrong_keys_hold_up_that_address_s_keys_alone(session):
    for i in range(FREE_FAILURES + 3):
        record_failure(session, THROTTLE_NAME, "10.0.0.1", NOW + timedelta(seconds=i))
    later = NOW + timedelta(seconds=FREE_FAILURES + 3)
    assert throttled_until(session, THROTTLE_NAME, "10.0.0.1", later) is not None
    assert throttled_until(session, THROTTLE_NAME, "10.0.0.2", later) is None
    assert throttled_until(session, "admin", "10.0.0.1", later) is None


def test_failed_sign_ins_still_hold_up_their_address_for_any_name(session):
    for i in range(FREE_FAILURES + 3):
        record_failure(session, f"user{i}", "10.0.0.1", NOW + timedelta(seconds=i))
    later = NOW + timedelta(seconds=FREE_FAILURES + 3)
    assert throttled_until(session, "admin", "10.0.0.1", later) is not None
    assert throttled_until(session, THROTTLE_NAME, "10.0.0.1", later) is None
