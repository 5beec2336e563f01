// The edge recipe, as a worker (or any other runtime) runs it: one
// invocation connects, calls a tool and keeps `client.snapshot()`; a later
// one (another isolate, another process) restores it and calls at once.
// `McpClient` comes from the installed package.
export async function first(McpClient, url, where) {
  const client = await McpClient.connect(url, {
    clientInfo: { name: `mcp-edge-edge-test-${where}`, version: '0.0.0' },
    era: 'handshake',
    timeout: 20_000,
  });
  await echo(client, `first ${where}`);
  const snapshot = client.snapshot();
  if (snapshot?.version !== 1 || !snapshot.sessionId) {
    throw new Error(`not a handshake snapshot: ${JSON.stringify(snapshot)}`);
  }
  // Keep the session on the server: no DELETE.
  await client.detach();
  return JSON.stringify(snapshot);
}

export async function second(McpClient, url, stored, where) {
  const client = await McpClient.restore(JSON.parse(stored), url, { timeout: 20_000 });
  try {
    return await echo(client, `restored ${where}`);
  } finally {
    await client.detach();
  }
}

/// A listener open (so the GET stream holds a connection) and 20 calls at
/// once within the default budget: resolves to how many were answered.
export async function concurrent(McpClient, url, where) {
  const client = await McpClient.connect(url, {
    clientInfo: { name: `mcp-edge-budget-test-${where}`, version: '0.0.0' },
    era: 'handshake',
    timeout: 30_000,
  });
  try {
    client.addNotificationListener(() => {});
    const calls = Array.from({ length: 20 }, (_, i) => echo(client, `call ${i}`).then(() => 1, () => 0));
    const answered = (await Promise.all(calls)).reduce((a, b) => a + b, 0);
    return answered;
  } finally {
    await client.close();
  }
}

async function echo(client, message) {
  const result = await client.callTool({ name: 'echo', arguments: { message } });
  const text = result?.content?.[0]?.text;
  if (text !== `Echo: ${message}`) throw new Error(`echo answered ${JSON.stringify(result)}`);
  return text;
}
