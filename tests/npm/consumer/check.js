// The check every environment runs against server-everything: connect, list
// the tools, call `echo`, close. Resolves to a one-line summary; throws on
// any mismatch. `McpClient` comes from the installed package.
export async function check(McpClient, url, where) {
  const client = await McpClient.connect(url, {
    clientInfo: { name: `mcp-edge-package-test-${where}`, version: '0.0.0' },
    timeout: 20_000,
  });
  try {
    const { tools } = await client.listTools();
    if (!tools.some((tool) => tool.name === 'echo')) {
      throw new Error(`no echo tool among ${tools.map((tool) => tool.name).join(', ')}`);
    }
    const message = `hello from ${where}`;
    const result = await client.callTool({ name: 'echo', arguments: { message } });
    const text = result?.content?.[0]?.text;
    if (text !== `Echo: ${message}`) {
      throw new Error(`echo answered ${JSON.stringify(result)}`);
    }
    return `${tools.length} tools, echo -> ${JSON.stringify(text)}`;
  } finally {
    await client.close();
  }
}
