"""A dual-era stdio server on the Python SDK (mcp 2.3.0): `add`, and
`confirm`, which asks the user through a `Resolve`/`Elicit` dependency (an
`input_required` round trip in 2026-07-28, an `elicitation/create` request
in the handshake era; `ctx.elicit` has no back-channel in 2026-07-28)."""
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, ElicitationResult, MCPServer, Resolve

server = MCPServer("py-dual-era")


class Confirm(BaseModel):
    confirmed: bool = True


def ask() -> Elicit[Confirm]:
    return Elicit("Sure?", Confirm)


@server.tool()
async def add(a: int, b: int) -> str:
    """Adds two numbers."""
    return str(a + b)


@server.tool()
async def confirm(answer: Annotated[ElicitationResult[Confirm], Resolve(ask)]) -> str:
    """Asks the user to confirm."""
    data = getattr(answer, "data", None)
    return f"{answer.action}:{getattr(data, 'confirmed', None)}"


if __name__ == "__main__":
    server.run("stdio")
