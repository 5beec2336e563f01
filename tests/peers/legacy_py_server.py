"""A legacy HTTP+SSE (2024-11-05) MCP server on the official Python SDK
(`mcp`, pinned in requirements.txt), for tests/legacy.rs.

    GET  /sse                          the event stream; its first event is
                                       `endpoint` (/messages/?session_id=...)
    POST /messages/?session_id=...     one client message (202 Accepted)

One tool, `echo(message)` -> "Echo: <message>". PORT from the environment
(default 8000). Run it from the venv `cargo xtask setup` creates:
tests/peers/.venv/bin/python tests/peers/legacy_py_server.py
"""

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("legacy-py-server")


@server.tool()
def echo(message: str) -> str:
    """Echoes the message back."""
    return f"Echo: {message}"


if __name__ == "__main__":
    server.run(transport="sse", host="127.0.0.1", port=int(os.environ.get("PORT", "8000")))
