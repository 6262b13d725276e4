"""The parts of the MCP server's live HTTP streams, as plain data: the events a GET
stream writes as the label moves, the ids that resume it, the signed session ids, and
the count of streams per key."""

from __future__ import annotations

import json
from itertools import islice

import pytest
from sqlalchemy.exc import OperationalError

from webapp.mcp_server import live
from webapp.mcp_server.sessions import LONGEST_SESSION_ID, Opened, Sessions, Streams, TooMany


class Ticks:
    """A clock that moves only when the stream sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def frames(readings: list[int | None], told: int | None, seconds: float = 100.0
           ) -> list[bytes]:
    """What a stream writes while the label names each of `readings` in turn."""
    ticks, left = Ticks(), iter(readings)
    last = [told]

    def current() -> int | None:
        last[0] = next(left, last[0])
        return last[0]

    stream = live.notifications(current, told, poll=1.0, seconds=seconds, clock=ticks,
                                sleep=ticks.sleep)
    return list(islice(stream, 50))


def parsed(frame: bytes) -> dict[str, str]:
    lines = frame.decode().removesuffix("\n\n").split("\n")
    return {name: value.removeprefix(" ") for name, _, value in
            (line.partition(":") for line in lines)}


def test_a_move_is_two_notifications_with_the_snapshot_as_their_id():
    written = frames([3, 3, 4, 4], told=3, seconds=3)
    priming, *rest = written
    assert parsed(priming) == {"event": "message", "id": "3", "retry": str(live.RETRY_MS),
                               "data": ""}
    events = [parsed(f) for f in rest if not f.startswith(b":")]
    assert [json.loads(e["data"])["method"] for e in events] == [
        "notifications/resources/list_changed", "notifications/prompts/list_changed"]
    assert {e["id"] for e in events} == {"4"}
    assert all(json.loads(e["data"]) == {"jsonrpc": "2.0", "method": json.loads(
        e["data"])["method"]} for e in events)


def test_a_quiet_stream_writes_a_comment_each_reading_and_ends_on_time():
    written = frames([5] * 10, told=5, seconds=3)
    assert written[1:] == [b":\n\n"] * 4  # readings at 0, 1, 2 and 3 seconds, then the end


def test_a_move_missed_between_streams_is_told_at_once():
    """A client resumes from the snapshot it was told of (`Last-Event-ID`)."""
    written = frames([7], told=6, seconds=0)
    assert [parsed(f)["id"] for f in written] == ["6", "7", "7"]


def test_a_label_that_points_nowhere_is_told_as_none():
    written = frames([None], told=2, seconds=0)
    assert parsed(written[1])["id"] == "none"
    assert live.told_of("none") is None


@pytest.mark.parametrize("sent, told", [("12", 12), ("none", None), ("", False), (None, False),
                                        ("x", False), ("²", False), ("9" * 40, False),
                                        ("-1", False)])
def test_only_our_event_ids_resume_a_stream(sent, told):
    assert live.told_of(sent) == told


def test_a_session_id_is_read_back_only_for_its_key_agent_and_label():
    sessions = Sessions("secret")
    opened = sessions.open(1, "Docs", "production", 5)
    assert sessions.read(opened, 1, "Docs", "production") == Opened(5)
    assert sessions.open(1, "Docs", "production", 5) != opened  # each session its own id
    for other in [(2, "Docs", "production"), (1, "Simon", "production"), (1, "Docs", "beta")]:
        assert sessions.read(opened, *other) is None
    assert Sessions("another secret").read(opened, 1, "Docs", "production") is None
    assert sessions.read(opened[:-2], 1, "Docs", "production") is None
    assert sessions.read("x" * (LONGEST_SESSION_ID + 1), 1, "Docs", "production") is None
    assert len(opened) <= LONGEST_SESSION_ID


def test_streams_are_bounded_per_key_and_in_all():
    streams = Streams(per_key=2, most=3)
    streams.take(1)
    streams.take(1)
    with pytest.raises(TooMany, match="this key holds 2"):
        streams.take(1)
    streams.take(2)
    with pytest.raises(TooMany, match="this server holds 3"):
        streams.take(3)
    streams.give_back(1)
    streams.take(3)
    for key in (1, 2, 3):
        streams.give_back(key)
    assert streams.open == {}


def test_a_stream_whose_label_cannot_be_read_ends():
    """The database went: the stream ends (the client opens it again), never a traceback
    in the worker."""
    def current() -> int | None:
        raise OperationalError("SELECT", {}, Exception("the database went"))

    ticks = Ticks()
    written = list(live.notifications(current, 3, poll=1.0, seconds=100, clock=ticks,
                                      sleep=ticks.sleep))
    assert [parsed(f)["id"] for f in written] == ["3"]
