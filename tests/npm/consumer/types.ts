// Type-checked by `deno check` (never run): the package's declarations are
// precise enough to catch mistakes and to type results.
import { type CallToolResult, init, initSync, McpClient, type Tool } from 'mcp-edge';
import { init as liteInit, McpClient as LiteClient } from 'mcp-edge/lite';

export async function typed(url: string): Promise<string> {
  const client: McpClient = await McpClient.connect(url, { clientInfo: { name: 'types', version: '1.0.0' } });
  const tools: Tool[] = (await client.listTools()).tools;
  const result: CallToolResult = await client.callTool(
    { name: 'echo', arguments: { message: 'hi' } },
    { signal: AbortSignal.timeout(5_000), onprogress: (progress) => console.log(progress.progress) },
  );
  // @ts-expect-error: `name` is required
  await client.callTool({ arguments: {} });
  const listener = (notification: { method: string }) => console.log(notification.method);
  client.addNotificationListener(listener);
  client.removeNotificationListener(listener);
  // @ts-expect-error: not a protocol revision
  await McpClient.connect(url, { protocolVersion: '1999-01-01' });
  await client.close();
  return `${tools.length} ${result.content.length} ${typeof init} ${typeof initSync}`;
}

// The lite entry has the same API.
export async function typedLite(url: string): Promise<string> {
  const client: LiteClient = await LiteClient.connect(url, { transport: 'streamable-http', era: 'auto' });
  const tools: Tool[] = (await client.listTools()).tools;
  // @ts-expect-error: not a transport
  await LiteClient.connect(url, { transport: 'websocket' });
  await client.close();
  return `${tools.length} ${typeof liteInit}`;
}
