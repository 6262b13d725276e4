"""Agent Skills folders from the command line: `skill-editor skills import` and `export`.

`skills import PATH --agent NAME` takes a SKILL.md, a skill's folder, a zip, or a folder of
many skills (a cloned skills repository): what it holds is read as the web import reads an
upload (`agentskills.read_tree`, the same limits and refusals), and imported by
`store.import_skills` as one change (the agent is created when it does not exist): the
skills that fit are imported, those left out are printed with why, and the exit status is
1 when any was.
`--dry-run` prints the preview the web page shows and writes nothing. `skills export
--agent NAME -o FILE.zip` writes the agent's skills folder as a zip; `-o DIR` writes one
folder per skill into DIR (refusing a folder that is there already).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import click

from webapp import agentskills, store
from webapp.schema import db
from webapp.views.skill_imports import ImportRow, import_rows

from .database import act_as, database_url_option


@click.group("skills")
def skills_group() -> None:
    """Agent Skills folders in and out: SKILL.md files, skill folders, zips of them."""


@skills_group.command("import")
@click.argument("path", type=click.Path(exists=True))
@click.option("--agent", "agent_name", metavar="NAME", required=True,
              help="The agent to import into (created when it does not exist).")
@click.option("--dry-run", is_flag=True, help="Print what the import would do; write nothing.")
@database_url_option
def import_cmd(path: str, agent_name: str, dry_run: bool, database_url: str | None) -> None:
    """Import the skills of PATH: a SKILL.md, a skill's folder, a zip, or a folder of many."""
    try:
        folders = read_path(Path(path), db.env_limits())
    except agentskills.SkillMdError as exc:
        _refuse(path, exc.problems)
    with db.session_scope(database_url) as session:
        act_as(session)
        try:
            plan = (store.plan_import(session, agent_name, folders) if dry_run else
                    store.import_skills(session, agent_name, folders))
        except store.ValidationError as exc:
            _refuse(path, exc.problems)
        except store.StoreError as exc:
            raise click.ClickException(str(exc)) from None
        for row in import_rows(plan):
            click.echo(_line(row))
            if dry_run:
                _diff(row)
    into = f"the new agent {plan.agent!r}" if plan.new_agent else repr(plan.agent)
    verb = "would import into" if dry_run else "imported into"
    note = " (dry run: nothing was written)" if dry_run else ""
    click.echo(f"{verb} {into}: {plan.summary}{note}", err=True)
    if plan.left_out:  # what was taken is written; the exit status says not all was
        names = ", ".join(out.name for out in plan.left_out)
        click.echo(f"left out: {names} (see above why)", err=True)
        sys.exit(1)


def _line(row: ImportRow) -> str:
    files = f"{row.files} file{'s' * (row.files != 1)}, {row.size:,} bytes"
    text = (f"{row.status:<9} {row.d_tag}  ({row.source}; {files})" if row.importable else
            f"{row.status:<9} {row.d_tag}  ({row.source}): not imported")
    if row.restored:
        text += ", from the trash"
    if row.diff is not None and row.diff.changed:
        text += f"  SKILL.md +{row.diff.added} -{row.diff.removed}"
    for change in row.file_changes:
        text += f"\n          {change.change} {change.path}"
    for problem in row.problems:
        where = f" line {problem.line}" if problem.line else ""
        text += f"\n          {problem.severity} {problem.code}{where}: {problem.message}"
    for where, why in row.reasons:
        text += f"\n          {where}: {why}"
    return text


def _diff(row: ImportRow) -> None:
    if row.diff is None or not row.diff.changed:
        return
    hunks, hidden = row.diff.cut("unified")
    for header, lines in hunks:
        click.echo(f"          {header}")
        for line in lines:
            click.echo(f"          {line.sign}{line.text}")  # type: ignore[union-attr]
    if hidden:
        click.echo(f"          ({hidden:,} more lines of this diff)")


@skills_group.command("export")
@click.option("--agent", "agent_name", metavar="NAME", required=True, help="The agent.")
@click.option("-o", "--output", type=click.Path(), required=True,
              help="A FILE.zip to write, or a folder to write one folder per skill into.")
@database_url_option
def export_cmd(agent_name: str, output: str, database_url: str | None) -> None:
    """Export an agent's skills as a skills folder: a zip, or folders in a directory."""
    with db.session_scope(database_url) as session:
        try:
            folders = store.export_folders(session, agent_name)
        except store.NotFound as exc:
            raise click.ClickException(str(exc)) from None
    target = Path(output)
    if output.lower().endswith(".zip"):
        target.write_bytes(agentskills.zip_folders(folders))
    else:
        write_folders(target, folders)
    count = f"{len(folders)} skill{'s' * (len(folders) != 1)}"
    click.echo(f"exported {count} of {agent_name!r} to {output}", err=True)


def write_folders(target: Path, folders: list[agentskills.SkillFolder]) -> None:
    """One folder per skill in `target` (created if need be); none may be there already."""
    names = agentskills.folder_names([folder.skill for folder in folders])
    there = [name for name in names if (target / name).exists()]
    if there:
        raise click.ClickException(f"{target} holds {', '.join(there)} already: export into "
                                   "an empty folder, or remove those first")
    for name, folder in zip(names, folders, strict=True):
        for path, data, executable in agentskills.folder_files(folder):
            file = target / name / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(data)
            if executable:
                file.chmod(file.stat().st_mode | 0o111)


# -- reading a path


def read_path(path: Path, limits: agentskills.FolderLimits = agentskills.DEFAULT_LIMITS
              ) -> agentskills.Upload:
    """The skills of a SKILL.md, a zip, or a folder (its name is the skill's folder name
    when it holds a SKILL.md itself); a zip is read entry by entry from the file.

    Raises:
        agentskills.SkillMdError: what stops the import.
    """
    if path.is_dir():
        return agentskills.read_tree(_entries(path), limits)
    with path.open("rb") as file:
        if agentskills.is_zip(path.name, file.read(4)):
            file.seek(0)
            return agentskills.read_zip(file, limits)
        file.seek(0)
        data = file.read(agentskills.MAX_SKILL_FILE_SIZE + 1)
    # A lone SKILL.md: its folder's name is the one its `name` is checked against.
    return agentskills.read_skill_md_alone(
        f"{path.resolve().parent.name}/{agentskills.SKILL_FILE}", data)


def _entries(top: Path) -> list[agentskills.Entry]:
    """Every entry under `top`, named from `top`'s own name (so a skill's folder given
    itself keeps its name); links are listed as links, never followed."""
    entries: list[agentskills.Entry] = []
    base = top.resolve()
    for directory, dirs, files in os.walk(base, followlinks=False):
        dirs[:] = [d for d in dirs if d not in agentskills.IGNORED_NAMES]
        for name in dirs + files:
            full = Path(directory) / name
            info = full.lstat()
            relative = f"{base.name}/{full.relative_to(base).as_posix()}"
            if stat.S_ISLNK(info.st_mode):
                entries.append(agentskills.Entry(relative, 0, "link"))
            elif stat.S_ISREG(info.st_mode):
                entries.append(agentskills.Entry(relative, info.st_size, "file",
                                                 bool(info.st_mode & 0o111), _reader(full)))
        if len(entries) > agentskills.MAX_ENTRIES:
            break  # read_tree refuses it by the count
    return entries


def _reader(path: Path) -> Callable[[int], bytes]:
    def read(limit: int) -> bytes:
        with path.open("rb") as file:
            return file.read(limit)
    return read


def _refuse(path: str, problems: list[tuple[str, str]]) -> NoReturn:
    click.echo(f"error: {path}: nothing was imported", err=True)
    for where, message in problems:
        click.echo(f"  {where}: {message}", err=True)
    sys.exit(1)
