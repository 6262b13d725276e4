"""Two writers saving the same skill at once: every save wins or conflicts, none is lost."""

from __future__ import annotations

import threading

from webapp import store

SAVES_PER_THREAD = 50


def test_two_threads_saving_the_same_skill(session_factory, session, agent):
    barrier = threading.Barrier(2)
    won: dict[str, list[tuple[int, str]]] = {"a": [], "b": []}
    conflicts: dict[str, int] = {"a": 0, "b": 0}
    errors: list[BaseException] = []

    def author(name: str) -> None:
        try:
            with session_factory() as own:
                barrier.wait()
                for i in range(SAVES_PER_THREAD):
                    # Start from what this author last saw, like an editor tab would.
                    version = store.get_skill(own, agent, "chat").version
                    text = f"{name}-{i}"
                    try:
                        saved = store.save_skill(own, agent, "chat", expected_version=version,
                                                 content=text)
                    except store.Conflict as conflict:
                        assert conflict.submitted["content"] == text
                        assert conflict.current["version"] > version
                        conflicts[name] += 1
                    else:
                        assert saved.version == version + 1
                        won[name].append((saved.version, text))
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=author, args=(name,)) for name in won]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors  # in particular, no "database is locked"

    successes = won["a"] + won["b"]
    assert len(successes) + sum(conflicts.values()) == 2 * SAVES_PER_THREAD
    revisions = store.list_revisions(session, agent, "chat")
    assert len(revisions) == 1 + len(successes), "one revision per successful save"
    assert sorted(r.version for r in revisions) == list(range(1, len(revisions) + 1))
    saved_texts = {r.version: r.content for r in revisions}
    for version, text in successes:
        assert saved_texts[version] == text, "every successful save is kept as it was sent"
    final = store.get_skill(session, agent, "chat")
    assert (final.version, final.content) == (revisions[0].version, revisions[0].content)
    assert final.content == max(successes)[1]


def test_of_two_saves_from_the_same_version_exactly_one_wins(session_factory, session, agent):
    rounds = 30
    barrier = threading.Barrier(2)
    outcomes: list[list[str]] = [[] for _ in range(rounds)]
    errors: list[BaseException] = []

    def author(name: str) -> None:
        try:
            with session_factory() as own:
                for i in range(rounds):
                    version = store.get_skill(own, agent, "chat").version
                    barrier.wait()  # both have read the same version; now both save
                    try:
                        store.save_skill(own, agent, "chat", expected_version=version,
                                         content=f"{name}-{i}")
                        outcomes[i].append("won")
                    except store.Conflict:
                        outcomes[i].append("conflict")
                    barrier.wait()  # next round starts from the winner's version
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=author, args=(name,)) for name in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert all(sorted(outcome) == ["conflict", "won"] for outcome in outcomes), outcomes
    assert store.get_skill(session, agent, "chat").version == 1 + rounds
    assert len(store.list_revisions(session, agent, "chat")) == 1 + rounds
