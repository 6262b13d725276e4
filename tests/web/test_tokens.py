"""Token counts: exact with the shipped o200k_base file, an explained estimate when it cannot
load."""

from __future__ import annotations

import gzip
import hashlib

import pytest

from webapp import tokens
from webapp.tokens import EncodingUnavailable, TokenCount, build_encoding, count_tokens, load_ranks


@pytest.fixture
def broken_encoding(monkeypatch):
    """Make the shipped rank file unreadable for this test, then load it afresh."""

    def fail(compressed: bytes):
        raise EncodingUnavailable("o200k_base.tiktoken.gz has sha256 000000000000…")

    monkeypatch.setattr(tokens, "build_encoding", fail)
    tokens._loader.reset()
    yield
    monkeypatch.undo()
    tokens._loader.reset()


@pytest.mark.parametrize("text, n", [
    ("", 0),
    ("hello world", 2),
    ("Hello, world!", 4),
    ("    ", 1),
])
def test_exact_counts(text, n):
    assert count_tokens(text) == TokenCount(n, exact=True)


def test_round_trip_and_special_tokens_as_text():
    encoding = tokens.encoding()
    assert encoding is not None and encoding.name == "o200k_base"
    text = "# Überschrift\n\n- **npub**: `npub1kfc89dlu…`\n🦀 <|endoftext|>"
    assert encoding.decode(encoding.encode_ordinary(text)) == text
    # An author typing the end-of-text marker gets text tokens, not the special token.
    assert 199999 not in encoding.encode_ordinary("<|endoftext|>")
    assert encoding.n_vocab == 200019


def test_fallback_estimate_says_why(broken_encoding):
    count = count_tokens("x" * 10)
    assert count == TokenCount(3, exact=False, reason=count.reason)
    assert "o200k_base unavailable" in count.reason and "sha256" in count.reason
    assert str(count) == "≈3"


def test_fallback_is_marked_in_the_ui(broken_encoding, client, simon):
    html = client.get("/agents/Simon/skills/chat").data.decode()
    assert '<abbr class="estimate" title="o200k_base unavailable' in html
    assert "≈" in html


def test_exact_counts_in_the_ui(client, simon):
    html = client.get("/agents/Simon/skills/chat").data.decode()
    assert 'class="estimate"' not in html
    assert " tokens</span>" in html


def test_hash_mismatch_is_refused():
    with pytest.raises(EncodingUnavailable, match="sha256"):
        load_ranks(b"IQ== 0\n")


def test_corrupt_gzip_is_refused():
    with pytest.raises(EncodingUnavailable, match="gzip"):
        build_encoding(b"not gzip at all")
    with pytest.raises(EncodingUnavailable, match="sha256"):
        build_encoding(gzip.compress(b"IQ== 0\n"))


def test_pattern_and_special_tokens_are_tiktokens_own(monkeypatch):
    """The encoding is o200k_base as tiktoken defines it, minus only the download."""
    from tiktoken_ext import openai_public

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: {})
    spec = openai_public.o200k_base()
    assert spec["pat_str"] == tokens.PAT_STR
    assert spec["special_tokens"] == tokens.SPECIAL_TOKENS
    assert tokens.encoding().name == spec["name"]


def test_reset_forgets_the_counts_of_pieces():
    """A count made with one encoding is never returned after the encoding is loaded again."""
    count_tokens("a piece to remember\n\nand another")
    assert len(tokens._counts) > 0
    tokens._loader.reset()
    assert len(tokens._counts) == 0
    assert count_tokens("a piece to remember").exact


@pytest.mark.parametrize("data", [b"IQ== 0\nIg==\n", b"IQ== zero\n"])
def test_a_file_with_the_right_hash_that_does_not_parse_is_refused(monkeypatch, data):
    """(The hash is the shipped file's; here it is made to match a file that is broken.)"""
    monkeypatch.setattr(tokens, "EXPECTED_SHA256", hashlib.sha256(data).hexdigest())
    with pytest.raises(EncodingUnavailable, match="does not parse"):
        load_ranks(data)


def test_each_line_is_a_token_and_its_rank(monkeypatch):
    data = b"IQ== 0\nIg== 1\n"
    monkeypatch.setattr(tokens, "EXPECTED_SHA256", hashlib.sha256(data).hexdigest())
    assert load_ranks(data) == {b"!": 0, b'"': 1}


def test_a_long_word_is_estimated_and_never_reaches_the_encoder(monkeypatch):
    """The encoding's merges grow with the square of a word's length (a megabyte of one
    letter: seconds): a run past `LONG_WORD` without whitespace is estimated, said so, and
    the encoder is never handed it."""
    enc = tokens.encoding()
    seen: list[int] = []
    real = enc.encode_ordinary

    def encode(text):
        seen.append(max(map(len, text.split()), default=0))
        return real(text)

    monkeypatch.setattr(enc, "encode_ordinary", encode)
    count = count_tokens("Some prose first.\n\n" + "a" * 1_000_000 + "\n\nAnd after.")
    assert not count.exact and "more than 4,096 characters is estimated" in count.reason
    assert count.n >= 250_000 and seen and max(seen) <= tokens.LONG_WORD
    assert count_tokens("word " * 2000).exact
