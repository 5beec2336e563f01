"""A dual-era stdio server on the Python SDK (mcp 2.3.0) with the tools of
era_python_tools.py: `add`, and `confirm`, which asks the user (an
`input_required` round trip in 2026-07-28, an `elicitation/create` request
in the handshake era)."""
from mcp.server.mcpserver import MCPServer

from era_python_tools import serve_add_and_confirm

server = MCPServer("py-dual-era")
serve_add_and_confirm(server)


if __name__ == "__main__":
    server.run("stdio")
