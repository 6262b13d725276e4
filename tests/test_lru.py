"""The one LRU class: bounded by entries or by weight, least recently used dropped first,
an entry heavier than the budget computed but not kept, and safe to share between threads."""

from __future__ import annotations

import threading

from webapp.bounds.lru import LRU


def test_bound_by_entries_drops_the_least_recently_used():
    cache: LRU[str, int] = LRU("test", 2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recently used
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3
    assert len(cache) == 2 and cache.weight == 2


def test_bound_by_weight():
    cache: LRU[str, str] = LRU("test", 12, weight=lambda key, value: len(key) + len(value))
    cache.put("ab", "AB")
    cache.put("cd", "CD")
    cache.get("ab")
    cache.put("efg", "EFG")  # 4 + 4 + 6 > 12: "cd", used least recently, goes
    assert cache.get("cd") is None
    assert cache.get("ab") == "AB" and cache.get("efg") == "EFG"
    assert cache.weight == 10


def test_eviction_order_is_least_recently_used_first():
    cache: LRU[int, int] = LRU("test", 3)
    for key in (1, 2, 3):
        cache.put(key, key)
    cache.get(1)
    cache.get(2)
    cache.put(4, 4)  # 3 was used least recently
    cache.put(5, 5)  # then 1
    assert [key for key in (1, 2, 3, 4, 5) if cache.get(key) is not None] == [2, 4, 5]


def test_putting_a_key_again_replaces_its_value_and_weight():
    cache: LRU[str, str] = LRU("test", 10, weight=lambda key, value: len(value))
    cache.put("k", "xxxx")
    cache.put("k", "yy")
    assert cache.get("k") == "yy" and cache.weight == 2 and len(cache) == 1


def test_an_entry_heavier_than_the_budget_is_computed_not_kept():
    computed: list[str] = []
    cache: LRU[str, str] = LRU("test", 5, weight=lambda key, value: len(value))
    cache.put("small", "ab")

    def compute(key: str) -> str:
        computed.append(key)
        return key * 3

    assert cache.get_or_compute("big", compute) == "bigbigbig"
    assert cache.get_or_compute("big", compute) == "bigbigbig"
    assert computed == ["big", "big"]
    assert cache.get("small") == "ab" and len(cache) == 1


def test_get_or_compute_computes_once_and_clear_forgets():
    computed: list[int] = []
    cache: LRU[int, int] = LRU("test", 10)

    def square(key: int) -> int:
        computed.append(key)
        return key * key

    assert [cache.get_or_compute(3, square), cache.get_or_compute(3, square)] == [9, 9]
    assert computed == [3]
    cache.clear()
    assert len(cache) == 0 and cache.weight == 0 and cache.get(3) is None
    assert cache.get_or_compute(3, square) == 9 and computed == [3, 3]


def test_a_value_of_none_or_a_default_is_told_apart_from_a_miss():
    cache: LRU[str, None] = LRU("test", 2)
    cache.put("k", None)
    assert cache.get("k", "missing") is None
    assert cache.get("other", "missing") == "missing"


def test_threads_sharing_a_cache_keep_it_within_its_bound():
    cache: LRU[int, int] = LRU("test", 50, weight=lambda key, value: 1 + key % 3)
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            for i in range(2000):
                key = (i * 7 + seed) % 120
                assert cache.get_or_compute(key, lambda k: k * 2) == key * 2
                if i % 500 == 0:
                    cache.clear()
        except Exception as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert cache.weight <= 50
    assert cache.weight == sum(1 + key % 3 for key in range(120) if cache.get(key) is not None)
