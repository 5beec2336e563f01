// What the hand-written stdio peers (crashy, stubborn, noisy) share: a
// JSON-RPC message a line on stdout, and the answer to `initialize`.

export const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

/** The answer to `request` (an `initialize`): the client's version back,
 * these capabilities, this server name. */
export const initialized = (request, name, capabilities) => ({
  jsonrpc: "2.0",
  id: request.id,
  result: {
    protocolVersion: request.params.protocolVersion,
    capabilities,
    serverInfo: { name, version: "1.0.0" },
  },
});
