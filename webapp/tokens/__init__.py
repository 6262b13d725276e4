"""Token counts for OpenAI's `o200k_base` encoding, computed offline.

The encoding's rank file ships with the package (`webapp/data/o200k_base.tiktoken.gz`,
taken from the `bpe-openai` wheel) so a count never needs the network. It is gunzipped
in memory, checked against the hash tiktoken itself expects, and turned into a
`tiktoken.Encoding` once per process (the web app loads it when it is created). If any
of that fails, counts fall back to an estimate that the UI marks with ≈ and explains
with `reason`.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources

import tiktoken

from webapp.bounds.lru import LRU

ENCODING_NAME = "o200k_base"
DATA_FILE = "o200k_base.tiktoken.gz"
#: sha256 of the uncompressed rank file, as in tiktoken_ext.openai_public.
EXPECTED_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

# Copied from tiktoken_ext.openai_public.o200k_base: the split pattern and special tokens
# are part of the encoding, not of the rank file.
_PATTERNS = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
)
PAT_STR = "|".join(_PATTERNS)
SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

#: Characters per token of the fallback estimate (English prose averages about four).
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class TokenCount:
    """A token count: `exact` when the real encoding counted it, else an estimate and why."""

    n: int
    exact: bool
    reason: str | None = None

    def __str__(self) -> str:
        return f"{self.n}" if self.exact else f"≈{self.n}"


class EncodingUnavailable(RuntimeError):
    """The shipped rank file is missing, corrupt or does not parse."""


def load_ranks(data: bytes) -> dict[bytes, int]:
    """Parse an uncompressed `.tiktoken` file (`base64-token rank` per line), checking its hash.

    Raises:
        EncodingUnavailable: the hash differs or a line does not parse.
    """
    digest = hashlib.sha256(data).hexdigest()
    if digest != EXPECTED_SHA256:
        raise EncodingUnavailable(
            f"{DATA_FILE} has sha256 {digest[:12]}…, expected {EXPECTED_SHA256[:12]}…")
    # Tokens and ranks alternate; decoded in C over the whole file (a Python step a line
    # cost 0.37 s of every process's first count, against 0.21 s this way).
    words = data.split()
    if len(words) % 2:
        raise EncodingUnavailable(f"{DATA_FILE} does not parse: a token without its rank")
    try:
        return dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2]),
                        strict=True))
    except ValueError as exc:  # binascii.Error is one
        raise EncodingUnavailable(f"{DATA_FILE} does not parse: {exc}") from None


def build_encoding(compressed: bytes) -> tiktoken.Encoding:
    """Build the `o200k_base` encoding from the gzipped rank file's bytes."""
    try:
        data = gzip.decompress(compressed)
    except (OSError, EOFError) as exc:
        raise EncodingUnavailable(f"{DATA_FILE} is not valid gzip: {exc}") from None
    return tiktoken.Encoding(
        name=ENCODING_NAME,
        pat_str=PAT_STR,
        mergeable_ranks=load_ranks(data),
        special_tokens=SPECIAL_TOKENS,
    )


class _Loader:
    """Loads the encoding once per process; remembers a failure so it is not retried per call."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = False
        self.encoding: tiktoken.Encoding | None = None
        self.error: str | None = None

    def get(self) -> tiktoken.Encoding | None:
        if not self._done:
            with self._lock:
                if not self._done:
                    self._load()
                    self._done = True
        return self.encoding

    def _load(self) -> None:
        try:
            compressed = resources.files("webapp").joinpath("data", DATA_FILE).read_bytes()
            self.encoding = build_encoding(compressed)
        except (OSError, EncodingUnavailable) as exc:
            self.error = (f"{ENCODING_NAME} unavailable ({exc}); estimated at "
                          f"{CHARS_PER_TOKEN} characters a token")

    def reset(self) -> None:
        """Forget the loaded encoding (tests use this to exercise the fallback)."""
        with self._lock:
            self._done = False
            self.encoding = None
            self.error = None
        _counts.clear()


_loader = _Loader()


def encoding() -> tiktoken.Encoding | None:
    """The `o200k_base` encoding, or None if it cannot be loaded (see `count_tokens`)."""
    return _loader.get()


def estimate(text: str) -> int:
    """A rough token count for when the encoding is unavailable."""
    return -(-len(text) // CHARS_PER_TOKEN)


def count_tokens(text: str) -> TokenCount:
    """Count `text`'s tokens exactly with `o200k_base`, or estimate them if it cannot load.

    Special-token strings in the text count as ordinary text: skill content is data, and
    `<|endoftext|>` typed by an author is not the end-of-text token.
    """
    return count_texts([text])[0]


def count_texts(texts: Sequence[str]) -> list[TokenCount]:
    """Each of `texts`' counts (`count_tokens`), the texts sharing `EXACT_CHARS`: counted
    exactly, in order, until that many characters are counted in all, and the rest at the
    rate of what was counted (marked so). A chart of every part of a 20 MB document
    counts what one count of it would, not the 20 MB."""
    enc = encoding()
    if enc is None:
        return [TokenCount(estimate(text), exact=False, reason=_loader.error)
                for text in texts]
    found, tokens, chars = [], 0, 0  # what was counted exactly, of all the texts
    for text in texts:
        counted, done = [], 0
        for piece in pieces(text):
            left = EXACT_CHARS - chars - done
            if left <= 0:
                break
            # A piece with no place to cut it (a request body is one line) is counted up
            # to what is left, the rest estimated with the text's.
            piece = piece[:left]
            counted.append(_count_piece(piece))
            done += len(piece)
        n = sum(abs(count) for count in counted)
        tokens, chars = tokens + n, chars + done
        if done < len(text):  # the rest at the rate of what was counted
            n += -(-(len(text) - done) * max(tokens, 1) // max(chars, 1))
            found.append(TokenCount(n, exact=False, reason=f"past {EXACT_CHARS:,} characters "
                                    f"the count is estimated from the first {chars:,}"))
        elif any(count < 0 for count in counted):
            found.append(TokenCount(n, exact=False, reason=f"a word of more than "
                                    f"{LONG_WORD:,} characters is estimated"))
        else:
            found.append(TokenCount(n, exact=True))
    return found


#: The characters of a text counted exactly: about a million tokens, the largest window of
#: a model in `pipeline.MODEL_WINDOWS` (GPT-4.1's). A text past it has the rest estimated at
#: the rate of what was counted, so no count costs more than a second, whatever the size
#: (a 20 MB document of 200 skills took 3 s a count, and a step page counts two).
EXACT_CHARS = 4 * 1024 * 1024


#: A run of this many characters without whitespace is counted by estimate: the encoding's
#: merges grow with the square of a word's length (one word of a megabyte: 2 s; a megabyte
#: of prose: 0.13 s), and such a run is no text a model reads.
LONG_WORD = 4096


# The encoding first splits text with PAT_STR and never merges across those splits. After
# a run of newlines comes a split unless the next character is whitespace (the run would go
# on) or "/" (which `[\r\n/]*` takes along with the newlines): so the text may be cut there
# and its pieces counted apart. The runs are found by a pattern that takes a whole run and
# ends there, and the next character is looked at apart: with the condition in a lookahead
# (`\n\n+(?=[^\s/])`), a run of newlines followed by a space would be retried from each of
# its newlines, quadratic in the run (docs/performance.md, "Linear patterns").
_NEWLINE_RUN = re.compile(r"\n\n+")

#: Pieces up to this long have their counts remembered.
CACHED_PIECE_CHARS = 8192

#: The characters of pieces whose counts are remembered: a step page of a 20 MB document
#: counts two texts to `EXACT_CHARS` and its skills' parts, so four such pages. At 8
#: million, one page's two counts pushed its parts' out, and every view counted again.
COUNTED_CHARS = 32_000_000

#: The counts of the pieces counted last, keyed by the piece (the encoding is fixed: its
#: rank file is checked against a hash, and `_Loader.reset` clears this); weighed by the
#: pieces' characters, at most `COUNTED_CHARS`.
_counts: LRU[str, int] = LRU("token counts of pieces", COUNTED_CHARS,
                             weight=lambda piece, count: len(piece))


def pieces(text: str) -> Iterator[str]:
    """`text` cut after its blank lines, where the token count of the parts adds up to the
    whole; a piece longer than `CACHED_PIECE_CHARS` is cut after single newlines too, into
    parts of about half that or more, so that a text without blank lines is remembered
    too. Made as they are read: a count that stops at `EXACT_CHARS` cuts no further."""
    start = 0
    for match in _NEWLINE_RUN.finditer(text):
        end = match.end()
        if end < len(text) and _split_before(text[end]):
            yield from _parts(text, start, end)
            start = end
    yield from _parts(text, start, len(text))


_NEWLINES = re.compile(r"\n+")


def _parts(text: str, start: int, stop: int) -> Iterator[str]:
    """The piece `text[start:stop]` cut where a run of newlines ends before a character
    the encoding's split starts a new word at (as between blank lines), into parts of at
    least half of `CACHED_PIECE_CHARS` but the last."""
    if stop - start <= CACHED_PIECE_CHARS:
        yield text[start:stop]
        return
    # The first run that ends half a piece on is looked for from there, not line by line:
    # a search from inside a run ends where the run does.
    half = CACHED_PIECE_CHARS // 2
    at = start + half - 1
    while (match := _NEWLINES.search(text, at, stop)) is not None:
        end = at = match.end()
        if end < stop and _split_before(text[end]):
            yield text[start:end]
            start, at = end, end + half - 1
    yield text[start:stop]


def _split_before(char: str) -> bool:
    """Whether the encoding's split pattern ends a run of newlines before `char`."""
    return not char.isspace() and char != "/"


def _count_piece(piece: str) -> int:
    """The piece's count; negative when it was estimated (a word past `LONG_WORD`)."""
    # A keystroke changes one piece of a large document; the others are counted already.
    if len(piece) <= CACHED_PIECE_CHARS:
        return _counts.get_or_compute(piece, _count)
    return _count(piece)


def _has_long_word(piece: str) -> bool:
    # Only a piece longer than a long word can hold one; `split` runs in C.
    return len(piece) > LONG_WORD and max(map(len, piece.split()), default=0) > LONG_WORD


def _count(piece: str) -> int:
    if _has_long_word(piece):
        return -estimate(piece)
    enc = encoding()
    assert enc is not None  # count_tokens checked
    return len(enc.encode_ordinary(piece))
