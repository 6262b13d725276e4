"""An agent's MCP server: what a label publishes, served to agents (Claude Code, Codex,
VS Code, Cursor, any MCP SDK's program) over stdio (`skill-editor mcp`) and over
Streamable HTTP beside the runtime API (`/api/v1/agents/<agent>/mcp`).

`catalogue` maps a snapshot to the protocol (skills as `skill://` resources, scenarios as
prompts), `server` builds the official SDK's server on it, `stdio` and `http` carry it.
docs/mcp.md says what is served, how to connect, and the limits.
"""
