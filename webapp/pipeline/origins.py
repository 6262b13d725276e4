"""The origins of a block's lines, kept as runs: an author's lines are one run (a skill,
its first line, how many), a value's lines one repeated origin, and an `Origin` object
is made for a line only when it is read.

A 1,000-skill document has some 60,000 author lines. Made one by one, their origins were
a fifth of a cold assembly, and, kept by the memos, each stayed in the garbage
collector's care (a named tuple is never untracked as a plain tuple is), which made the
full collections of a worker longer as its memos filled (docs/performance.md, "Origins
as runs"). As runs they cost a small tuple per placeholder, whatever the lines.

`Origins` is an immutable `Sequence[Origin]`: indexing, slicing, iteration, `len` and
equality behave as on the tuple it stands for. A block's origins may be an `Origins` or
a plain tuple (a value's lines, a template section's); `OriginsBuilder` joins either.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, chain, repeat
from typing import overload

from .memo import tuple_bytes
from .result import Origin

_new = tuple.__new__  # `_new(Origin, fields)` makes the named tuple in C, at a third the cost

#: A part of `Origins`, one of three shapes of tuple:
#: - a run of an author's lines, `(skill, first line, count)`;
#: - one origin repeated, `(kind, skill, line, name, count)`: a value's lines;
#: - origins one by one, `(Origin, ...)`.
#: The first two hold only strings and numbers: the garbage collector stops following
#: such a tuple after its first look, where it would follow an `Origin` for ever (a named
#: tuple is never untracked as a plain tuple is), so what a memo keeps of them is off
#: the collector's books.
Part = tuple


def _is_run(part: Part) -> bool:
    return len(part) == 3 and type(part[0]) is str


def _size(part: Part) -> int:
    return part[-1] if type(part[0]) is str else len(part)


def _made(part: Part) -> tuple[Origin, ...]:
    if type(part[0]) is not str:
        return part
    if len(part) == 3:
        skill, first, count = part
        return tuple(map(_new, repeat(Origin), zip(
            repeat("skill"), repeat(skill), range(first, first + count), repeat(None))))
    return (_new(Origin, part[:4]),) * part[4]


def _cut(part: Part, start: int, stop: int) -> Part:
    """Lines `start` to `stop - 1` of `part` (0 <= start < stop <= its size)."""
    if type(part[0]) is not str:
        return part[start:stop]
    if len(part) == 3:
        return (part[0], part[1] + start, stop - start)
    return (*part[:4], stop - start)


def _one(part: Part, index: int) -> Origin:
    """Line `index` of `part`."""
    if type(part[0]) is not str:
        return part[index]
    if len(part) == 3:
        return _new(Origin, ("skill", part[0], part[1] + index, None))
    return _new(Origin, part[:4])


class Origins(Sequence[Origin]):
    """One origin per line, kept as parts (see the module's docstring)."""

    __slots__ = ("_ends", "parts", "size")

    def __init__(self, parts: tuple[Part, ...] = (), size: int | None = None):
        self.parts = parts
        self.size = sum(map(_size, parts)) if size is None else size
        self._ends: list[int] | None = None  # where each part ends, made when indexed

    @classmethod
    def of_skill(cls, d_tag: str, count: int) -> Origins:
        """The origins of lines 1 to `count` of skill `d_tag`."""
        return cls(((d_tag, 1, count),), count) if count else _EMPTY

    def __len__(self) -> int:
        return self.size

    def __bool__(self) -> bool:
        return self.size > 0

    def __iter__(self) -> Iterator[Origin]:
        return chain.from_iterable(map(_made, self.parts))

    def spans(self) -> Iterator[tuple[int, int, str, str | None]]:
        """`(first line index, line count, kind, skill)` for each run of lines of one
        kind and skill, without an `Origin` per line (a context test reads a 100,000-line
        document's skills this way)."""
        at = 0
        for part in self.parts:
            if type(part[0]) is str:
                size = _size(part)
                yield (at, size, "skill", part[0]) if len(part) == 3 else (
                    at, size, part[0], part[1])
                at += size
            else:
                for origin in part:
                    yield at, 1, origin.kind, origin.skill
                    at += 1

    def _locate(self, index: int) -> tuple[int, int]:
        """The part line `index` (0 <= index < size) is in, and where that part starts."""
        ends = self._ends
        if ends is None:
            # `_size` inline: a document of 200 skills of 100 KB has a million parts.
            ends = self._ends = list(accumulate([
                part[-1] if type(part[0]) is str else len(part) for part in self.parts]))
        at = bisect_right(ends, index)
        return at, ends[at - 1] if at else 0

    @overload
    def __getitem__(self, index: int) -> Origin: ...
    @overload
    def __getitem__(self, index: slice) -> Origins: ...

    def __getitem__(self, index: int | slice) -> Origin | Origins:
        if isinstance(index, slice):
            start, stop, step = index.indices(self.size)
            if step != 1:
                items = tuple(self)[index]
                return Origins((items,), len(items)) if items else _EMPTY
            return self.between(start, stop)
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError("Origins index out of range")
        parts = self.parts
        if len(parts) == 1:
            at, begin = 0, 0
        else:
            at, begin = self._locate(index)
        return _one(parts[at], index - begin)

    def between(self, start: int, stop: int) -> Origins:
        """Lines `start` to `stop - 1` (0 <= start), as far as there are lines."""
        stop = min(stop, self.size)
        if stop <= start:
            return _EMPTY
        if start == 0 and stop == self.size:
            return self
        parts = self.parts
        if len(parts) == 1:
            return Origins((_cut(parts[0], start, stop),), stop - start)
        first, first_begin = self._locate(start)
        last, last_begin = self._locate(stop - 1)
        if first == last:
            return Origins((_cut(parts[first], start - first_begin, stop - first_begin),),
                           stop - start)
        head = parts[first]
        cut: list[Part] = [_cut(head, start - first_begin, _size(head))]
        cut += parts[first + 1:last]
        cut.append(_cut(parts[last], 0, stop - last_begin))
        return Origins(tuple(cut), stop - start)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Origins):
            return self.size == other.size and tuple(self) == tuple(other)
        if isinstance(other, (tuple, list)):
            return self.size == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Origins({self.parts!r})"

    def nbytes(self) -> int:
        """About what this object keeps: itself and its parts, each counted as a run or a
        repeated origin (a part of loose origins, rare, is counted as one)."""
        return 64 + tuple_bytes(len(self.parts)) + len(self.parts) * _PART_BYTES

    @property
    def run(self) -> tuple[str, int, int] | None:
        """`(skill, first line, count)` when these are an author's lines in one run."""
        parts = self.parts
        return parts[0] if len(parts) == 1 and _is_run(parts[0]) else None


_EMPTY = Origins((), 0)
_PART_BYTES = tuple_bytes(5)


def with_values(run: tuple[str, int, int], values: Iterable[tuple[int, str, str]],
                shapes: Mapping[str, tuple[str, int]]) -> Origins:
    """The origins of `run`'s lines once values are put in: `values` gives, in line order
    (one a line at most), the 0-based line of the run a value is on, the text before it
    on that line or since the last value, and its name; `shapes` each name's origin kind
    and its number of lines after the first.

    A line a value begins (after indentation at most) is the value's, any other keeps
    its own origin, and the value's other lines are the value's. One part a run and one
    a value: this loop is a cold assembly's step per placeholder.
    """
    skill, first, count = run
    parts: list[Part] = []
    copied = extra = 0  # the first line not yet out, the values' lines after their first
    for line, before, name in values:
        kind, more = shapes[name]
        begins = before.rstrip(" \t")[-1:] in ("\n", "")
        stop = line if begins else line + 1
        if stop > copied:
            parts.append((skill, first + copied, stop - copied))
        if begins or more:
            parts.append((kind, skill, first + line, name, more + 1 if begins else more))
        copied, extra = line + 1, extra + more
    if count > copied:
        parts.append((skill, first + copied, count - copied))
    return Origins(tuple(parts), count + extra)


def origin_spans(origins: Sequence[Origin]) -> Iterator[tuple[int, int, str, str | None]]:
    """`Origins.spans` of any sequence of origins (a plain one: a span a line)."""
    if isinstance(origins, Origins):
        return origins.spans()
    return ((i, 1, o.kind, o.skill) for i, o in enumerate(origins))


class OriginsBuilder:
    """Origins put together in order, loose ones and whole runs alike."""

    __slots__ = ("loose", "parts", "size")

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.loose: list[Origin] = []  # the origins after the last part, not yet a part
        self.size = 0

    def _flush(self) -> None:
        if self.loose:
            self.parts.append(tuple(self.loose))
            self.size += len(self.loose)
            self.loose = []

    def append(self, origin: Origin) -> None:
        self.loose.append(origin)

    def extend(self, origins: Sequence[Origin]) -> None:
        """Add `origins`: an `Origins` by its parts, anything else origin by origin."""
        if type(origins) is not Origins:
            self.loose += origins
            return
        if not origins.size:
            return
        self._flush()
        parts, more = self.parts, origins.parts
        first = more[0]
        # A run that goes on where the last one stopped (a block cut and put back
        # together) extends it. The parts of one `Origins` are joined already.
        if (parts and _is_run(first) and _is_run(last := parts[-1])
                and last[0] == first[0] and last[1] + last[2] == first[1]):
            parts[-1] = (last[0], last[1], last[2] + first[2])
            parts += more[1:]
        else:
            parts += more
        self.size += origins.size

    def extend_between(self, origins: Sequence[Origin], start: int, stop: int) -> None:
        """Add lines `start` to `stop - 1` of `origins` (0 <= start), as far as there are
        lines."""
        if type(origins) is not Origins:
            self.loose += origins[start:stop]
            return
        stop = min(stop, origins.size)
        if stop <= start:
            return
        parts = origins.parts
        if len(parts) == 1 and _is_run(run := parts[0]):  # a skill's lines: most blocks
            if self.loose:
                self._flush()
            self.parts.append((run[0], run[1] + start, stop - start))
            self.size += stop - start
            return
        self.extend(origins.between(start, stop))

    def repeat(self, kind: str, skill: str | None, line: int | None, name: str | None,
               count: int) -> None:
        """Add `Origin(kind, skill, line, name)` `count` times (a value's lines)."""
        if count:
            if self.loose:
                self._flush()
            self.parts.append((kind, skill, line, name, count))
            self.size += count

    def build(self) -> Origins:
        self._flush()
        return Origins(tuple(self.parts), self.size) if self.parts else _EMPTY


def line_runs(origins: Sequence[Origin]) -> Iterator[tuple[Origin, int]]:
    """`origins` in runs of lines that differ in their line number at most: each run's
    first origin and its number of lines. Of an `Origins`, a run of an author's lines
    or a value's lines is one item, so a view that asks which skill wrote which lines
    of a large document makes no origin per line."""
    if type(origins) is not Origins:
        return zip(origins, repeat(1))
    return chain.from_iterable(map(_part_runs, origins.parts))


def _part_runs(part: Part) -> Iterable[tuple[Origin, int]]:
    if type(part[0]) is not str:
        return zip(part, repeat(1))
    return ((_one(part, 0), part[-1]),)  # a run or a repeated origin: one item


def line_sources(origins: Sequence[Origin]
                 ) -> Iterator[tuple[str, str | None, str | None, int]]:
    """`line_runs` as `(kind, skill, name, lines)`, without an `Origin` made a run: the
    Budget chart groups a 20 MB document's 200,000 runs by what wrote them."""
    if type(origins) is not Origins:
        for origin in origins:
            yield origin.kind, origin.skill, origin.name, 1
        return
    for part in origins.parts:
        if type(part[0]) is not str:
            for origin in part:
                yield origin.kind, origin.skill, origin.name, 1
        elif len(part) == 3:
            yield "skill", part[0], None, part[2]
        else:
            yield part[0], part[1], part[3], part[4]


def first_line_of(origins: Sequence[Origin], skill: str | None) -> int | None:
    """The 0-based index of the first line `skill` wrote (its own or a value put into
    its text), or None."""
    for at, _, _, writer in origin_spans(origins):  # runs, no `Origin` made for each
        if writer == skill:
            return at
    return None


def skills_of(origins: Sequence[Origin]) -> list[str | None]:
    """The skills that wrote the lines of `origins` (None for a line no skill wrote), each
    once, in the order of their first line: a part at a time, no span or `Origin` made
    for a run (a 20 MB document has a million parts)."""
    if type(origins) is not Origins:
        return list(dict.fromkeys(origin.skill for origin in origins))
    return list(dict.fromkeys(chain.from_iterable(
        ((part[0] if len(part) == 3 else part[1]),) if type(part[0]) is str
        else (origin.skill for origin in part) for part in origins.parts)))


def data_lines(origins: Sequence[Origin]) -> bytearray:
    """A byte per line: 1 where a value, a tool or the history wrote the line (its
    origin's kind is not `skill`), 0 where the author did. Made a run at a time, with no
    `Origin` made, however many lines a run has."""
    mask = bytearray(len(origins))
    for at, count, kind, _ in origin_spans(origins):
        if kind != "skill":
            mask[at:at + count] = b"\x01" * count
    return mask


def picked(origins: Sequence[Origin], indexes: Sequence[int]) -> Origins:
    """The origins of lines `indexes` (increasing) of `origins`, consecutive ones as the
    runs they were."""
    out = OriginsBuilder()
    start = end = 0  # the range of consecutive indexes being gathered (none at first)
    for index in indexes:
        if index != end:
            out.extend_between(origins, start, end)
            start = index
        end = index + 1
    out.extend_between(origins, start, end)
    return out.build()


def origins_bytes(origins: Sequence[Origin]) -> int:
    """What a block's origins keep besides the origins of values (see `Origins.nbytes`)."""
    return origins.nbytes() if type(origins) is Origins else tuple_bytes(len(origins))
