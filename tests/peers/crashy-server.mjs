// Answers initialize, then on the first tools/call writes two lines to stderr
// and exits with code 3: a server that dies mid-call.
import { createInterface } from "node:readline";

import { initialized, send } from "./stdio-peer.mjs";

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    send(initialized(message, "crashy-server", { tools: {} }));
  } else if (message.method === "tools/call") {
    // Exit only once the lines are in the pipe.
    process.stderr.write("crashy: the database is on fire\ncrashy: giving up with code 3\n", () => process.exit(3));
  }
});
