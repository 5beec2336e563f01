// Answers initialize, then refuses to die: it ignores stdin closing and
// SIGTERM, so only SIGKILL ends it. It says on stderr what it ignored.
import { createInterface } from "node:readline";

process.on("SIGTERM", () => console.error("stubborn: ignoring SIGTERM"));
setInterval(() => {}, 1000);

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const input = createInterface({ input: process.stdin });
input.on("close", () => console.error("stubborn: ignoring stdin closing"));
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: {},
        serverInfo: { name: "stubborn-server", version: "1.0.0" },
      },
    });
  }
});
