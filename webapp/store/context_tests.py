"""Context tests run on a workspace, the same for the editor's Tests tab, the publish gate
and `skill-editor test`: the pipeline's checks (`pipeline.run_tests`) with the agent's
tokenizer, a summary, approving a snapshot, and the JUnit file CI systems read.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from junitparser import Failure, JUnitXml, TestCase, TestSuite

from webapp.bounds import deadlines
from webapp.pipeline import (
    DIRECT_SEARCH,
    Context,
    Search,
    TestResult,
    Workspace,
    assemble,
    run_tests,
    search_cost,
    search_pattern,
    skills_in,
)
from webapp.tokens import count_tokens


@dataclass(frozen=True, slots=True)
class TestRun:
    """Every test's result, in scenario order."""

    results: tuple[TestResult, ...]

    @property
    def failures(self) -> list[TestResult]:
        return [r for r in self.results if not r.passed]

    @property
    def summary(self) -> str:
        failed = len(self.failures)
        passed = len(self.results) - failed
        return f"{passed} passed, {failed} failed" if self.results else "no tests"

    def to_dict(self) -> dict[str, Any]:
        """What a snapshot keeps: counts and each failure."""
        return {"passed": len(self.results) - len(self.failures),
                "failed": len(self.failures),
                "failures": [{"scenario": r.scenario, "name": r.name, "message": r.message}
                             for r in self.failures]}


def run(workspace: Workspace, scenario: str | None = None,
        contexts: dict[str, Context] | None = None, search: Search | None = None) -> TestRun:
    """The tests of every scenario of `workspace` (or of `scenario`), with the built-in
    ones unless the agent switched them off; patterns searched by `search` (by default
    `bounded_search`)."""
    return TestRun(tuple(run_tests(workspace, lambda text: count_tokens(text).n,
                                   scenario=scenario, contexts=contexts,
                                   builtin=workspace.agent.builtin_tests,
                                   search=search or bounded_search)))


def bounded_search(pattern: str, text: str) -> bool | None:
    """A `regex` test's search: on this thread when its worst case is small
    (`pipeline.DIRECT_SEARCH` characters × instructions), else in a worker under the
    `regex` deadline (`bounded`); None when it overran."""
    if search_cost(pattern, text) <= DIRECT_SEARCH:
        return search_pattern(pattern, text)
    found = deadlines.run("regex", _search, [(pattern, text)]).results[0]
    return None if found is deadlines.OVERRUN else found


def _search(item: tuple[str, str]) -> bool | None:
    return search_pattern(*item)


def run_for_skill(workspace: Workspace, d_tag: str,
                  known: Mapping[str, tuple[Context, TestRun]] | None = None) -> TestRun:
    """The tests of every scenario whose context holds skill `d_tag` (the editor's Tests
    tab), each scenario assembled once; `known`: scenarios already assembled and tested,
    by name (the preview's own: its badge ran them)."""
    results: list[TestResult] = []
    for sc in workspace.scenarios:
        context, done = (known or {}).get(sc.name) or (assemble(workspace, sc), None)
        if d_tag in skills_in(context):
            results += (done or run(workspace, sc.name, {sc.name: context})).results
    return TestRun(tuple(results))


def approve(workspace: Workspace, scenario: str, index: int, entry: str, by: str | None
            ) -> list[Any]:
    """Scenario `scenario`'s tests with snapshot test `index` approved as `entry` (the
    context-log entry assembled now), saying who and when."""
    sc = workspace.scenarios_by_name[scenario]
    expect = [dict(e) if isinstance(e, dict) else e for e in sc.expect]
    expect[index] = {**expect[index], "snapshot": entry,
                     "approved": {"by": by or "local",
                                  "at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}}
    return expect


def with_expect(workspace: Workspace, scenario: str, expect: Sequence[Any]) -> Workspace:
    """`workspace` with scenario `scenario`'s tests replaced."""
    return dataclasses.replace(workspace, scenarios=tuple(
        dataclasses.replace(s, expect=tuple(expect)) if s.name == scenario else s
        for s in workspace.scenarios))


#: What XML 1.0 cannot hold (C0 controls but tab, LF and CR; lone surrogates; U+FFFE and
#: U+FFFF): a test's name or a diff may have them, and the file must stay well formed.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """`text` as a JUnit file can hold it: a C0 control character becomes its Unicode
    control picture (ESC is `␛`, BEL `␇`, NUL `␀`: still seen where it was), anything else
    XML refuses becomes U+FFFD (docs/tests.md, "JUnit")."""
    return _NOT_XML.sub(_picture, text)


def _picture(match: re.Match[str]) -> str:
    code = ord(match[0])
    return chr(0x2400 + code) if code < 0x20 else "\ufffd"


def junit(run: TestRun, name: str) -> JUnitXml:
    """A JUnit document valid against the Jenkins xunit-plugin's junit-10.xsd: a testsuite
    per scenario, a testcase per test, a failure with the message and, for a text that
    differs, what was expected and what came; every name and text `xml_safe`."""
    xml = JUnitXml(xml_safe(name))
    suites: dict[str, TestSuite] = {}
    for result in run.results:
        suite = suites.get(result.scenario)
        if suite is None:
            suite = suites[result.scenario] = TestSuite(xml_safe(result.scenario))
            xml.add_testsuite(suite)
        case = TestCase(xml_safe(result.name),
                        classname=xml_safe(f"{name}.{result.scenario}"))
        if not result.passed:
            failure = Failure(xml_safe(result.message))
            if result.expected or result.actual:
                failure.text = xml_safe(f"expected:\n{result.expected}\n\n"
                                        f"actual:\n{result.actual}\n")
            case.result = [failure]
        suite.add_testcase(case)
    for suite in suites.values():
        suite.update_statistics()
    # The totals set here, not by `xml.update_statistics()`, which also writes a
    # `skipped` attribute the schema does not allow on <testsuites>.
    xml.tests = sum(suite.tests for suite in suites.values())
    xml.failures = sum(suite.failures for suite in suites.values())
    xml.errors = sum(suite.errors for suite in suites.values())
    xml.time = round(sum(suite.time for suite in suites.values()), 3)
    return xml
