// Answers initialize, then on the first tools/call writes two lines to stderr
// and exits with code 3: a server that dies mid-call.
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "crashy-server", version: "1.0.0" },
      },
    });
  } else if (message.method === "tools/call") {
    // Exit only once the lines are in the pipe.
    process.stderr.write("crashy: the database is on fire\ncrashy: giving up with code 3\n", () => process.exit(3));
  }
});
