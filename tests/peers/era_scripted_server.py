"""A scripted stdio MCP server for era-detection tests (no SDK).

Usage: era_scripted_server.py legacy|legacy-exit|modern
  legacy       answers `initialize` (2025-11-25); anything before it gets -32601
  legacy-exit  the same, but exits on any request before `initialize`
  modern       2026-07-28 only: `server/discover`, MRTR `tools/call`;
               `initialize` gets -32022 naming 2026-07-28
Every request line is echoed to stderr as `seen <json>` for the test.
"""
import json
import sys

MODE = sys.argv[1]
V = "2026-07-28"
initialized = False


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(id_, value):
    send({"jsonrpc": "2.0", "id": id_, "result": value})


def error(id_, code, message, data=None):
    err = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    send({"jsonrpc": "2.0", "id": id_, "error": err})


TOOLS = [{"name": "confirm", "inputSchema": {"type": "object", "properties": {}}},
         {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    sys.stderr.write("seen " + json.dumps(msg) + "\n")
    sys.stderr.flush()
    if "id" not in msg:
        continue
    id_, method, params = msg["id"], msg.get("method"), msg.get("params") or {}
    if MODE.startswith("legacy"):
        if method == "initialize":
            initialized = True
            result(id_, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                         "serverInfo": {"name": "legacy", "version": "1"}})
        elif not initialized:
            if MODE == "legacy-exit":
                sys.exit(3)
            error(id_, -32601, "Method not found")
        elif method == "tools/list":
            result(id_, {"tools": TOOLS})
        elif method == "tools/call":
            result(id_, {"content": [{"type": "text", "text": "legacy " + json.dumps(params.get("arguments"))}]})
        else:
            error(id_, -32601, "Method not found")
        continue
    meta = params.get("_meta") or {}
    if meta.get("io.modelcontextprotocol/protocolVersion") != V:
        error(id_, -32022, "Unsupported protocol version", {"supported": [V], "requested": meta.get("io.modelcontextprotocol/protocolVersion")})
        continue
    if method == "server/discover":
        result(id_, {"resultType": "complete", "supportedVersions": [V], "capabilities": {"tools": {}},
                     "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "1"}},
                     "ttlMs": 60000, "cacheScope": "public"})
    elif method == "tools/list":
        result(id_, {"resultType": "complete", "tools": TOOLS, "ttlMs": 0, "cacheScope": "private"})
    elif method == "tools/call" and params.get("name") == "confirm":
        responses = params.get("inputResponses")
        if responses is None:
            result(id_, {"resultType": "input_required", "requestState": "opaque-\u00e9-state==",
                         "inputRequests": {"ok": {"method": "elicitation/create", "params": {
                             "mode": "form", "message": "Sure?", "requestedSchema": {
                                 "type": "object", "properties": {"confirmed": {"type": "boolean", "default": True}}}}}}})
        else:
            text = json.dumps({"state": params.get("requestState"), "responses": responses}, sort_keys=True)
            result(id_, {"resultType": "complete", "content": [{"type": "text", "text": text}]})
    elif method == "tools/call":
        # No resultType: an older server's complete result.
        result(id_, {"content": [{"type": "text", "text": "modern " + json.dumps(params.get("arguments"))}]})
    else:
        error(id_, -32601, "Method not found")
