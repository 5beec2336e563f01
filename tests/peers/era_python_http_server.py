"""A dual-era Streamable HTTP server on the Python SDK (mcp 2.3.0), with CORS
for browser clients.

The SDK's session manager routes by the `MCP-Protocol-Version` header: a
2026-07-28 value goes to the stateless (single-exchange) entry, a handshake
revision or no header at all to the `initialize`/`Mcp-Session-Id` transport.
So one endpoint serves both eras.

Listens on 127.0.0.1, port from env PORT (0 or unset: any free port), path
/mcp, and prints `listening http://127.0.0.1:<port>/mcp` once the socket
accepts connections.

Tools:
- `add(a, b)` and `confirm()`: era_python_tools.py.
- `region_echo(region)`: `region` is declared `x-mcp-header: Region`, so a
  2026-07-28 client must send it as `Mcp-Param-Region` (the SDK checks it).
- `set_note(text)`: changes the resource `note://greeting` and publishes
  `notifications/resources/updated` for it.
- `toggle_extra()`: adds or removes the tool `extra` and publishes
  `notifications/tools/list_changed`.
Change notifications reach 2026-07-28 `subscriptions/listen` streams; in the
handshake era they also go to the session (`resources/subscribe` is served).

The CORS policy allows any origin (no credentials), the methods GET, POST,
DELETE and OPTIONS, mirrors whatever request headers the preflight names
(there is no `Mcp-Param-*` prefix wildcard in CORS), and exposes
`Mcp-Session-Id` and `WWW-Authenticate`. With env
`MCP_PEER_STRICT_CORS=1` it allows only the handshake era's headers
instead (no `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), like an old allowlist.
"""

import os
import socket
import sys
from typing import Annotated

import uvicorn
from pydantic import Field
from starlette.middleware.cors import CORSMiddleware

from mcp.server.mcpserver import Context, MCPServer

from era_python_tools import serve_add_and_confirm

server = MCPServer("py-http-dual-era")
serve_add_and_confirm(server)
note = {"text": "hello"}
NOTE_URI = "note://greeting"


@server.tool()
async def region_echo(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """Echoes a region sent as the Mcp-Param-Region header too."""
    return f"region:{region}"


@server.resource(NOTE_URI)
def greeting() -> str:
    """A note that set_note changes."""
    return note["text"]


async def _handshake_session_notify(ctx: Context, method: str, *args: str) -> None:
    """The handshake era's notification on the caller's session, if it has one."""
    try:
        await getattr(ctx.request_context.session, method)(*args)
    except Exception:  # 2026-07-28: no session back-channel; listen streams get it
        pass


@server.tool()
async def set_note(text: str, ctx: Context) -> str:
    """Changes note://greeting and says so."""
    note["text"] = text
    await ctx.notify_resource_updated(NOTE_URI)
    await _handshake_session_notify(ctx, "send_resource_updated", NOTE_URI)
    return f"note:{text}"


async def extra() -> str:
    """Exists only while toggled on."""
    return "extra"


@server.tool()
async def toggle_extra(ctx: Context) -> str:
    """Adds or removes the tool `extra` and says the list changed."""
    names = {tool.name for tool in await server.list_tools()}
    if "extra" in names:
        server.remove_tool("extra")
        state = "removed"
    else:
        server.add_tool(extra, name="extra")
        state = "added"
    await ctx.notify_tools_changed()
    await _handshake_session_notify(ctx, "send_tool_list_changed")
    return f"extra:{state}"


async def _subscribe(ctx, params):  # handshake-era resources/subscribe: accepted, nothing to keep
    return {}


try:
    from mcp_types import SubscribeRequestParams, UnsubscribeRequestParams

    server._lowlevel_server.add_request_handler("resources/subscribe", SubscribeRequestParams, _subscribe)
    server._lowlevel_server.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, _subscribe)
except Exception as error:  # pragma: no cover - an SDK without the hook still serves the rest
    print(f"resources/subscribe not served: {error}", file=sys.stderr)

HANDSHAKE_HEADERS = [
    "Content-Type",
    "Accept",
    "Authorization",
    "MCP-Protocol-Version",
    "Mcp-Session-Id",
    "Last-Event-ID",
]


def app():
    strict = os.environ.get("MCP_PEER_STRICT_CORS") == "1"
    inner = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    return CORSMiddleware(
        inner,
        allow_origins=["*"],
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        # "*" makes Starlette mirror Access-Control-Request-Headers, which
        # covers every Mcp-Param-<Name>; fine without credentials.
        allow_headers=HANDSHAKE_HEADERS if strict else ["*"],
        expose_headers=["Mcp-Session-Id", "WWW-Authenticate"],
    )


def main() -> None:
    port = int(os.environ.get("PORT") or "0")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    port = sock.getsockname()[1]
    # Connections queue in the backlog until uvicorn accepts them.
    print(f"listening http://127.0.0.1:{port}/mcp", flush=True)
    config = uvicorn.Config(app(), log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
