"""`Origins` keeps a block's line origins as runs; it must read as the tuple it stands for."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from webapp.pipeline.origins import (
    Origins,
    OriginsBuilder,
    data_lines,
    first_line_of,
    line_runs,
    line_sources,
    picked,
    skills_of,
    with_values,
)
from webapp.pipeline.result import Origin

_SKILLS = st.sampled_from(["a", "b"])
_RUNS = st.tuples(_SKILLS, st.integers(1, 50), st.integers(1, 6))
_REPEATS = st.tuples(st.sampled_from(["tool", "variable"]), _SKILLS, st.integers(1, 50),
                     st.sampled_from(["x", "y"]), st.integers(1, 4))
_LOOSE = st.lists(st.sampled_from([Origin("separator"), Origin("role"),
                                   Origin("tool", "a", 3, "x")]), min_size=1, max_size=4
                  ).map(tuple)
_PARTS = st.lists(st.one_of(_RUNS, _REPEATS, _LOOSE), max_size=6).map(tuple)


def made(part: tuple) -> list[Origin]:
    """What one part stands for, written out the plain way."""
    if isinstance(part[0], Origin):
        return list(part)
    if len(part) == 3:
        skill, first, count = part
        return [Origin("skill", skill, line) for line in range(first, first + count)]
    kind, skill, line, name, count = part
    return [Origin(kind, skill, line, name)] * count


def plain(parts: tuple) -> tuple[Origin, ...]:
    return tuple(origin for part in parts for origin in made(part))


@given(_PARTS)
def test_origins_read_as_their_tuple(parts):
    origins, expected = Origins(parts), plain(parts)
    assert len(origins) == len(expected) and bool(origins) == bool(expected)
    assert tuple(origins) == expected and origins == expected and origins == list(expected)
    for index in range(-len(expected), len(expected)):
        assert origins[index] == expected[index]
    for start in range(len(expected) + 1):
        for stop in range(len(expected) + 2):
            assert tuple(origins[start:stop]) == expected[start:stop]
    assert tuple(origins[::2]) == expected[::2]


@given(_PARTS)
def test_an_index_past_the_end_is_an_index_error(parts):
    origins = Origins(parts)
    for index in (len(origins), -len(origins) - 1):
        try:
            origins[index]
        except IndexError:
            continue
        raise AssertionError(f"origins[{index}] answered")


@given(st.lists(st.tuples(st.sampled_from(["extend", "between", "append", "repeat"]),
                          _PARTS, st.integers(0, 8), st.integers(0, 8))))
def test_the_builder_joins_parts_as_a_list_would(steps):
    builder, expected = OriginsBuilder(), []
    for step, parts, a, b in steps:
        origins = Origins(parts)
        # Both shapes a block's origins come in: `Origins` and a plain tuple.
        source = origins if a % 2 else tuple(origins)
        if step == "extend":
            builder.extend(source)
            expected += plain(parts)
        elif step == "between":
            builder.extend_between(source, a, b)
            expected += plain(parts)[a:b]
        elif step == "append":
            builder.append(Origin("title"))
            expected.append(Origin("title"))
        else:
            builder.repeat("tool", "a", a, "x", b)
            expected += [Origin("tool", "a", a, "x")] * b
    built = builder.build()
    assert tuple(built) == tuple(expected) and len(built) == len(expected)


def test_a_run_cut_and_put_back_together_is_one_run_again():
    whole = Origins.of_skill("s", 10)
    builder = OriginsBuilder()
    builder.extend(whole[:4])
    builder.extend(whole[4:])
    assert builder.build().parts == (("s", 1, 10),)


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["", "  ", "- uses "]),
                          st.integers(0, 3)), max_size=5),
       st.integers(1, 4))
def test_values_put_into_a_run_take_their_lines(gaps, tail):
    """Line by line: a line a value begins (after indentation at most) is the value's,
    another keeps its own origin, and the value's other lines follow it."""
    values, shapes, expected, line = [], {}, [], 0
    for index, (gap, before, more) in enumerate(gaps):
        expected += [Origin("skill", "s", 3 + n) for n in range(line, line + gap)]
        line += gap
        name = f"v{index}"
        value = Origin("tool", "s", 3 + line, name)
        expected.append(value if not before.strip() else Origin("skill", "s", 3 + line))
        expected += [value] * more
        values.append((line, "text\n" * bool(gap) + before, name))
        shapes[name] = ("tool", more)
        line += 1
    count = line + tail
    expected += [Origin("skill", "s", 3 + n) for n in range(line, count)]
    origins = with_values(("s", 3, count), values, shapes)
    assert tuple(origins) == tuple(expected) and len(origins) == len(expected)


@given(_PARTS)
def test_line_runs_are_the_lines_in_runs(parts):
    """Each run stands for lines that differ in their line number at most, and the runs
    together are every line, of an `Origins` and of a plain sequence alike."""
    expected = plain(parts)
    for origins in (Origins(parts), expected):
        lines = []
        for origin, count in line_runs(origins):
            run = expected[len(lines):len(lines) + count]
            assert all(o._replace(line=None) == origin._replace(line=None) for o in run)
            assert run[0] == origin
            lines += run
        assert tuple(lines) == expected


@given(_PARTS)
def test_line_sources_are_the_line_runs_without_their_origins(parts):
    """The Budget chart's reading: each run's kind, skill, name and lines, as `line_runs`
    gives them, of an `Origins` and of a plain sequence alike."""
    for origins in (Origins(parts), plain(parts)):
        assert list(line_sources(origins)) == [
            (origin.kind, origin.skill, origin.name, count)
            for origin, count in line_runs(origins)]


@given(_PARTS, _SKILLS)
def test_the_first_line_of_a_skill_is_found_without_making_every_line(parts, skill):
    expected = next((i for i, o in enumerate(plain(parts)) if o.skill == skill), None)
    assert first_line_of(Origins(parts), skill) == expected
    assert first_line_of(plain(parts), skill) == expected


@given(_PARTS, st.data())
def test_picked_lines_keep_their_origins(parts, data):
    expected = plain(parts)
    indexes = sorted(data.draw(st.sets(st.integers(0, max(len(expected) - 1, 0)))
                               if expected else st.just(set())))
    for origins in (Origins(parts), expected):
        assert tuple(picked(origins, indexes)) == tuple(expected[i] for i in indexes)


@given(_PARTS)
def test_data_lines_mark_every_line_a_value_wrote(parts):
    expected = plain(parts)
    assert data_lines(Origins(parts)) == bytes(o.kind != "skill" for o in expected)
    assert data_lines(expected) == bytes(o.kind != "skill" for o in expected)


@given(_PARTS)
def test_skills_of_name_each_writer_once_in_the_order_of_its_first_line(parts):
    expected = list(dict.fromkeys(o.skill for o in plain(parts)))
    assert skills_of(Origins(parts)) == expected
    assert skills_of(plain(parts)) == expected


def test_spans_cover_every_line_with_its_kind_and_skill():
    from webapp.pipeline.origins import origin_spans

    builder = OriginsBuilder()
    builder.extend(Origins.of_skill("a", 3))
    builder.repeat("variable", "a", 4, "v", 2)
    builder.extend((Origin("title", None, None, None), Origin("skill", "b", 1, None)))
    built = builder.build()
    expanded = [(kind, skill) for start, count, kind, skill in origin_spans(built)
                for _ in range(count)]
    assert expanded == [(o.kind, o.skill) for o in built]
    plain = list(built)
    assert [(k, s) for _, _, k, s in origin_spans(plain)] == [(o.kind, o.skill) for o in plain]
