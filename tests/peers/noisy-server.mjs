// A server that answers correctly but surrounds its answers with garbage on
// stdout: a line that is not JSON, an oversized line (run the client with a
// small max_line_bytes), JSON that is not JSON-RPC, blank and CRLF lines, a
// response with an id nobody asked for, and a batch holding a notification.
import { createInterface } from "node:readline";

import { initialized, send } from "./stdio-peer.mjs";

const write = (text) => process.stdout.write(text);

const noise = () => {
  write("this line is not JSON at all\n");
  send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(5000) } });
  write('{"hello":"not a JSON-RPC message"}\n');
  write("\n");
  write("   \r\n");
  send({ jsonrpc: "2.0", id: 987654, result: {} });
};

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    noise();
    send(initialized(message, "noisy-server", { tools: {}, logging: {} }));
  } else if (message.method === "tools/call") {
    noise();
    write(
      JSON.stringify([
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "from a batch" } },
        { jsonrpc: "2.0", bogus: true },
      ]) + "\r\n",
    );
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: { content: [{ type: "text", text: `still here: ${message.params.arguments.message}` }] },
    });
  }
});
