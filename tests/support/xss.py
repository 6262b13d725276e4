"""The XSS corpus: payloads for every place untrusted text enters, and an agent made of them."""

from __future__ import annotations

import json

XSS = [
    "<script>alert('script')</script>",
    '<img src=x onerror="alert(\'img\')">',
    "[markdown link](javascript:alert('md'))",
    '<a href="javascript:alert(1)">html link</a>',
    '<a href=" JaVaScRiPt:alert(1)">spaced link</a>',
    "<svg onload=alert('svg')><circle r=1 /></svg>",
    "<svg><script>alert('svg script')</script></svg>",
    "<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a></svg>",
    "```html\n<script>alert('fenced')</script>\n<img src=x onerror=alert('fenced img')>\n```",
    "    <script>alert('indented code')</script>",
    "`<script>alert('inline code')</script>`",
    '<iframe src="javascript:alert(1)"></iframe>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data link</a>',
    "![data image](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    '<div style="background:url(javascript:alert(1))">styled</div>',
    '"><script>alert("attribute breakout")</script>',
    "'><img src=x onerror=alert(1)>",
    '<math><mi xlink:href="javascript:alert(1)">math</mi></math>',
    '<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    "<details open ontoggle=alert('details')>",
    '<form action="javascript:alert(1)">'
    '<button formaction="javascript:alert(2)">go</button></form>',
    "<style>body{background:url(javascript:alert(1))}</style>",
    "<base href=\"javascript:alert(1)//\">",
    "<!-- <script>alert('comment')</script> -->",
    "{{ '<script>alert(1)</script>' }}",
    "<scr<script>ipt>alert('nested')</scr</script>ipt>",
    "&lt;script&gt;alert('entities')&lt;/script&gt;",
]
CORPUS = "\n\n".join(XSS)
#: A d_tag may hold anything but whitespace and braces, so it can carry markup too.
EVIL_TAG = "\"><svg/onload=alert(1)>"


def xss_bundle() -> dict:
    history = [{"role": role, "content": payload, "created_at": 1}
               for role, payload in zip(["user", "assistant"] * len(XSS), XSS, strict=False)]
    return {
        "format": "skill-workspace/1",
        "agent": {"name": "Mallory", "title": "{name} <script>alert('title')</script>",
                  "message_mode": "sequence"},
        "skills": [
            {"d_tag": "evil", "name": "<img src=x onerror=alert('name')>", "triggers": ["dm"],
             "content": "system:\n# Evil\n" + CORPUS + "\n\n{{payload}}\n{{evil_tool}}\n"
                        "{{" + EVIL_TAG + "}}\n{{message}}\n{{trigger_event}}\n---template---\n"
                        "- section: history\n  role: expand\n  tool: dm_history\n"},
            {"d_tag": EVIL_TAG, "name": "tag", "layer": 2, "content": CORPUS},
        ],
        "tools": [
            {"name": "evil_tool", "description": "<script>alert('description')</script>",
             "result": {"success": True, "content": json.dumps({"html": XSS, "nested": {
                 "k<script>": "<img src=x onerror=alert('key')>"}})}},
        ],
        "variables": [{"name": "payload", "tool": "evil_tool", "format": "json_block"}],
        "scenarios": [{"name": "<b>evil scenario</b>", "trigger": "dm",
                       "message": CORPUS, "history": history,
                       "event": {"content": "<script>alert('event')</script>", "tags": XSS[:3]}}],
    }
