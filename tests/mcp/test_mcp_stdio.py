"""`skill-editor mcp` over stdio with the SDK's own client: the skills of the production
snapshot as `skill://` resources, byte for byte what `skill-editor skills export` writes,
and the Skills-over-MCP extension declared."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client, MCPError

from tests.support.mcp import stdio, stdio_client
from webapp.cli import main
from webapp.mcp_server.http import run_alone


def exported(database_url: str, agent: str, folder: Path) -> dict[str, bytes]:
    """What `skill-editor skills export` writes of `agent`, by `skill://` URI."""
    result = CliRunner().invoke(main, ["skills", "export", "--agent", agent, "-o", str(folder),
                                       "--database-url", database_url])
    assert result.exit_code == 0, result.output
    return {f"skill://{path.relative_to(folder).as_posix()}": path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def data_of(contents) -> bytes:
    text = getattr(contents, "text", None)
    return text.encode("utf-8") if text is not None else base64.b64decode(contents.blob)


async def read_all(database_url: str, agent: str):
    async with stdio_client(database_url, agent) as client:
        listed = (await client.list_resources()).resources
        read = {r.uri: (await client.read_resource(r.uri)).contents[0] for r in listed}
        return client.server_capabilities, listed, read


def test_every_skill_and_file_is_served_as_the_export_writes_it(published_url, tmp_path):
    capabilities, listed, read = run_alone(read_all, published_url, "Docs")
    # The handshake era's schema has no `extensions`: the client keeps `experimental`.
    assert capabilities.experimental == {"io.modelcontextprotocol/skills": {}}
    assert capabilities.resources.list_changed and capabilities.prompts.list_changed
    expected = exported(published_url, "Docs", tmp_path / "export")
    assert [r.uri for r in listed if r.uri.endswith("/SKILL.md")] == [
        "skill://doc-coauthoring/SKILL.md", "skill://mcp-builder/SKILL.md",
        "skill://pdf/SKILL.md", "skill://chat-main/SKILL.md"]
    assert {uri: data_of(c) for uri, c in read.items()} == expected
    binary = [c for c in read.values() if hasattr(c, "blob")]
    assert binary and all(c.mime_type == "application/octet-stream" or
                          not c.mime_type.startswith("text/") for c in binary)


def test_a_skill_md_carries_its_frontmatter_name_and_description(published_url):
    _, listed, read = run_alone(read_all, published_url, "Docs")
    pdf = next(r for r in listed if r.uri == "skill://pdf/SKILL.md")
    assert (pdf.name, pdf.mime_type) == ("pdf", "text/markdown")
    assert pdf.description.startswith("Comprehensive PDF manipulation toolkit")
    chat = next(r for r in listed if r.uri == "skill://chat-main/SKILL.md")
    assert chat.title == "chat-main" and "name: chat-main" in read[chat.uri].text
    scripts = [r for r in listed if r.uri.startswith("skill://pdf/scripts/")]
    assert scripts and all(r.mime_type == "text/x-python" for r in scripts
                           if r.uri.endswith(".py"))


def test_the_2026_era_declares_the_extension_in_discover(published_url):
    async def discover():
        async with Client(stdio(published_url, "Docs"), mode="auto") as client:
            return client.protocol_version, client.server_capabilities

    version, capabilities = run_alone(discover)
    assert version == "2026-07-28"
    assert capabilities.extensions == {"io.modelcontextprotocol/skills": {}}


def test_an_unknown_resource_is_an_invalid_params_error(published_url):
    async def read_missing():
        async with stdio_client(published_url, "Docs") as client:
            with pytest.raises(MCPError) as raised:
                await client.read_resource("skill://pdf/SKILL.mdx")
            return raised.value

    error = run_alone(read_missing)
    assert error.code == -32602 and "did you mean" in error.message


def test_a_huge_argument_is_an_invalid_params_error(published_url):
    async def huge():
        async with stdio_client(published_url, "Simon") as client:
            name = (await client.list_prompts()).prompts[0].name
            with pytest.raises(MCPError) as raised:
                await client.get_prompt(name, {"message": "x" * (1024 * 1024 + 1)})
            return raised.value

    error = run_alone(huge)
    assert error.code == -32602 and "message" in error.message


def test_an_unknown_agent_is_refused_by_the_command(published_url):
    result = CliRunner().invoke(main, ["mcp", "--agent", "Nobody",
                                       "--database-url", published_url])
    assert result.exit_code == 1 and "Nobody" in result.output
