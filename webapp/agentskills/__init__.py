"""Agent Skills folders: SKILL.md in and out, a skill's files, zips, lint and catalogues.

Pure: text, bytes and the pipeline's plain data in, the same out; no Flask, no SQLAlchemy,
no I/O (reading a folder on disk is the command line's: it hands `read_tree` its entries).
The store keeps what this package reads (`store.folders`) and enforces its path rule and
limits on every write; the web pages and the command line call both. `docs/folders.md`
says what is kept, what is refused, and where each client's rule comes from.
"""

from .archive import (
    folder_files,
    folder_names,
    is_zip,
    read_skill_md_alone,
    read_upload,
    read_zip,
    zip_folders,
    zip_skill,
)
from .catalogue import Catalogue, Listed, budget_of, catalogue, listing_facts, overflows
from .clients import CLIENTS, DEFAULT_CLIENTS, SPEC_KEYS, Client, client_problem
from .folders import (
    MAX_ENTRIES,
    MAX_SKILLS,
    MAX_UPLOAD_BYTES,
    Entry,
    SkillFile,
    SkillFolder,
    read_tree,
)
from .frontmatter import SkillMdError, parse_head
from .line_ends import with_new_head
from .lint import exported_name, lint_skill
from .paths import (
    IGNORED_NAMES,
    MAX_FILES,
    MAX_FILES_BYTES,
    MAX_PATH_LENGTH,
    SKILL_FILE,
    file_set_problems,
    fold,
    path_problem,
)
from .skill_md import (
    DESCRIPTION_MAX_LENGTH,
    MAX_SKILL_FILE_SIZE,
    NAME_MAX_LENGTH,
    SKILL_MD_FIELDS,
    SkillText,
    crlf_throughout,
    description_of,
    dump_skill_md,
    encode_skill_md,
    frontmatter_of,
    frontmatter_yaml,
    head_for,
    load_skill_md,
    name_problems,
    read_skill_md,
    skill_name,
    text_bytes,
    with_frontmatter,
)

__all__ = [
    "Catalogue",
    "Listed",
    "budget_of",
    "catalogue",
    "listing_facts",
    "overflows",
    "CLIENTS",
    "DEFAULT_CLIENTS",
    "SPEC_KEYS",
    "Client",
    "client_problem",
    "exported_name",
    "lint_skill",
    "DESCRIPTION_MAX_LENGTH",
    "IGNORED_NAMES",
    "MAX_ENTRIES",
    "MAX_FILES",
    "MAX_FILES_BYTES",
    "MAX_PATH_LENGTH",
    "MAX_SKILLS",
    "MAX_SKILL_FILE_SIZE",
    "MAX_UPLOAD_BYTES",
    "NAME_MAX_LENGTH",
    "SKILL_FILE",
    "SKILL_MD_FIELDS",
    "Entry",
    "SkillFile",
    "SkillFolder",
    "SkillMdError",
    "SkillText",
    "crlf_throughout",
    "description_of",
    "dump_skill_md",
    "encode_skill_md",
    "file_set_problems",
    "fold",
    "folder_files",
    "folder_names",
    "frontmatter_of",
    "frontmatter_yaml",
    "head_for",
    "is_zip",
    "load_skill_md",
    "name_problems",
    "parse_head",
    "path_problem",
    "read_skill_md",
    "read_tree",
    "read_skill_md_alone",
    "read_upload",
    "read_zip",
    "skill_name",
    "text_bytes",
    "with_frontmatter",
    "with_new_head",
    "zip_folders",
    "zip_skill",
]
