"""A dual-era stdio server on the Python SDK (mcp 2.3.0): one MRTR tool."""
from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("py-dual-era")


class Confirm(BaseModel):
    confirmed: bool = True


@server.tool()
async def add(a: int, b: int) -> str:
    """Adds two numbers."""
    return str(a + b)


@server.tool()
async def confirm(ctx: Context) -> str:
    """Asks the user to confirm."""
    answer = await ctx.elicit("Sure?", Confirm)
    return f"{answer.action}:{getattr(getattr(answer, 'data', None), 'confirmed', None)}"


if __name__ == "__main__":
    server.run("stdio")
