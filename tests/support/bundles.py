"""Bundles for the tests."""

from __future__ import annotations

from typing import Any

#: A bundle written with every key (as `dump_bundle` writes them), using every kind of
#: JSON value where the format allows any: export(import(FULL_BUNDLE)) must equal it.
FULL_BUNDLE: dict[str, Any] = {
    "format": "skill-workspace/1",
    "agent": {
        "name": "Tester",
        "title": "{name} — test agent",
        "message_mode": "sequence",
        "max_array_items": 3,
        "history_labels": {"assistant": "Bot", "user": "Human", "system": "Runtime"},
        "model": "claude-haiku-4-5",
        "context_window": 50000,
    },
    "skills": [
        {"d_tag": "base", "name": "Base", "description": "The shared base.", "layer": 2,
         "triggers": [], "enabled": True,
         "content": "You are a test.\n"},
        {"d_tag": "main", "name": "Main", "description": "", "layer": 1, "triggers": ["dm", "cron"],
         "enabled": True,
         "content": ("system:\n{{base}}\n\n# Ünïcödé ✓\n\n{{ base }} and \\{{base}}\n\n"
                     "user:\n{{message}}\n")},
        {"d_tag": "off", "name": "", "description": "Ünïcödé, \"quoted\"", "layer": 1,
         "triggers": ["dm"], "enabled": False,
         "content": ""},
    ],
    "tools": [
        {"name": "lookup", "description": "Looks things up.",
         "result": {"success": True, "content": "{\"a\": [1, 2.5, null, true, \"x\"]}"},
         "results_by_args": [
             {"args": {"q": "x", "n": 1}, "result": {"success": True, "content": "found x"}},
             {"args": ["list", "args"], "result": {"success": False, "error": "nope"}},
             {"args": None, "result": None},
         ]},
        {"name": "empty", "description": "", "result": None, "results_by_args": []},
    ],
    "variables": [
        {"name": "found", "tool": "lookup", "args": {"q": "x", "n": 1},
         "result_field": "content", "path": "a.0", "format": "inline_code", "limit": 2},
        {"name": "plain", "tool": "empty", "args": None, "result_field": "content",
         "path": None, "format": None, "limit": None},
        {"name": "string_args", "tool": "lookup", "args": "just a string",
         "result_field": "error", "path": None, "format": "text", "limit": 0},
    ],
    "scenarios": [
        {"name": "hello", "trigger": "dm", "message": "Hi!\nSecond line",
         "history": [
             {"role": "user", "content": "earlier", "created_at": 1774263548},
             {"role": "assistant", "content": "reply", "created_at": "2026-03-23T09:22:48Z"},
             {"role": "assistant", "content": "note", "created_at": None},
         ],
         "event": None, "provider": None},
        {"name": "tick", "trigger": "cron", "message": "",
         "history": [],
         "event": {"kind": 1, "tags": [["t", "cron"]], "nested": {"big": 12345678901234567890,
                                                                   "f": 0.1}},
         "provider": "anthropic"},
    ],
}
