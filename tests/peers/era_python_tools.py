"""The tools both dual-era Python peers serve (era_python_sdk_server.py over
stdio, era_python_http_server.py over Streamable HTTP), on the Python SDK
(mcp 2.3.0):
- `add(a, b)`: the sum, as text.
- `confirm()`: asks the user through a `Resolve`/`Elicit` dependency (an
  `input_required` round trip in 2026-07-28, an `elicitation/create` request
  in the handshake era; `ctx.elicit` has no back-channel in 2026-07-28);
  answers `<action>:<confirmed>`."""
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, ElicitationResult, MCPServer, Resolve


class Confirm(BaseModel):
    confirmed: bool = True


def ask() -> Elicit[Confirm]:
    return Elicit("Sure?", Confirm)


async def add(a: int, b: int) -> str:
    """Adds two numbers."""
    return str(a + b)


async def confirm(answer: Annotated[ElicitationResult[Confirm], Resolve(ask)]) -> str:
    """Asks the user to confirm."""
    data = getattr(answer, "data", None)
    return f"{answer.action}:{getattr(data, 'confirmed', None)}"


def serve_add_and_confirm(server: MCPServer) -> None:
    """Registers `add` and `confirm` on `server`, in that order."""
    server.tool()(add)
    server.tool()(confirm)
