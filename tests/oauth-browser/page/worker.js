// A module Web Worker of the test page: connects with the auth options it
// is sent, calls echo, and posts the outcome back; `entry: "lite"` loads
// `mcp-edge/lite`.
self.onmessage = async ({ data }) => {
  try {
    const { McpClient } = await import(data.entry === 'lite' ? '/pkg/lite.js' : '/pkg/index.js');
    const client = await McpClient.connect(data.server, {
      clientInfo: { name: 'oauth-worker-test', version: '1.0.0' },
      timeout: 20000,
      auth: data.auth,
    });
    const called = await client.callTool({ name: 'echo', arguments: { message: 'hello from a worker' } });
    await client.close();
    self.postMessage({ ok: true, echo: called.content?.[0]?.text ?? '' });
  } catch (error) {
    self.postMessage({ ok: false, name: error?.name, message: String(error?.message ?? error) });
  }
};
