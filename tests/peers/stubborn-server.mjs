// Answers initialize, then refuses to die: it ignores stdin closing and
// SIGTERM, so only SIGKILL ends it. It says on stderr what it ignored.
import { createInterface } from "node:readline";

import { initialized, send } from "./stdio-peer.mjs";

process.on("SIGTERM", () => console.error("stubborn: ignoring SIGTERM"));
setInterval(() => {}, 1000);

const input = createInterface({ input: process.stdin });
input.on("close", () => console.error("stubborn: ignoring stdin closing"));
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    send(initialized(message, "stubborn-server", {}));
  }
});
