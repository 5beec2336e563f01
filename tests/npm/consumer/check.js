// The check every environment runs against server-everything: connect, list
// the tools, call `echo`, check structured content against its output schema,
// close. Resolves to a one-line summary; throws on any mismatch. `McpClient`
// comes from the installed package.
export async function check(McpClient, url, where) {
  // The lite entry is built without the `persist` feature.
  const lite = where.endsWith('-lite');
  // Before any connect (in a page or worker the module is not loaded yet):
  // `restore` loads it as `connect` does, and what is not a snapshot is
  // refused as such; the lite entry refuses `restore` itself, by name.
  const refusal = await McpClient.restore({}, url).then(
    () => 'accepted',
    (error) => `${error?.name}: ${error?.message}`,
  );
  const expected = lite ? 'TypeError: McpClient.restore is not in this build' : "McpClient.snapshot()'s object";
  if (!refusal.includes(expected) || (lite && !refusal.includes('`persist` feature'))) {
    throw new Error(`restore({}) before the first connect: ${refusal}`);
  }
  const client = await McpClient.connect(url, {
    clientInfo: { name: `mcp-edge-package-test-${where}`, version: '0.0.0' },
    timeout: 20_000,
  });
  let tools;
  try {
    ({ tools } = await client.listTools());
    if (!tools.some((tool) => tool.name === 'echo')) {
      throw new Error(`no echo tool among ${tools.map((tool) => tool.name).join(', ')}`);
    }
    const message = `hello from ${where}`;
    const result = await client.callTool({ name: 'echo', arguments: { message } });
    const text = result?.content?.[0]?.text;
    if (text !== `Echo: ${message}`) {
      throw new Error(`echo answered ${JSON.stringify(result)}`);
    }
    const weather = await client.callTool(WEATHER);
    if (weather?.structuredContent?.humidity !== 82) {
      throw new Error(`${WEATHER.name} answered ${JSON.stringify(weather)}`);
    }
    persisted(McpClient, client, lite);
  } finally {
    await client.close();
  }
  const mismatch = await validation(McpClient, url, where);
  return `${tools.length} tools, echo -> ${JSON.stringify(`Echo: hello from ${where}`)}, ${mismatch}`;
}

/// A connected client's `snapshot()` and the verdicts: plain objects from
/// the full entry; from the lite one, a TypeError that names the feature.
function persisted(McpClient, client, lite) {
  const calls = [
    ['snapshot', () => client.snapshot()],
    ['exportVerdicts', () => McpClient.exportVerdicts()],
    ['importVerdicts', () => McpClient.importVerdicts({ version: 1, era: {}, transport: {} })],
  ];
  for (const [method, call] of calls) {
    let outcome;
    try {
      outcome = { value: call() };
    } catch (error) {
      outcome = { error };
    }
    if (lite) {
      const { error } = outcome;
      if (!(error instanceof TypeError) || !error.message.startsWith(`McpClient.${method} is not in this build`)) {
        throw new Error(`lite ${method}() did not refuse by name: ${error ?? JSON.stringify(outcome.value)}`);
      }
    } else if (outcome.error) {
      throw outcome.error;
    } else if (method === 'snapshot' && (outcome.value?.version !== 1 || typeof outcome.value?.protocolVersion !== 'string')) {
      throw new Error(`snapshot() gave ${JSON.stringify(outcome.value)}`);
    } else if (method === 'exportVerdicts' && (outcome.value?.version !== 1 || typeof outcome.value?.era !== 'object')) {
      throw new Error(`exportVerdicts() gave ${JSON.stringify(outcome.value)}`);
    }
  }
}

// server-everything's tool with an `outputSchema` (humidity: number).
const WEATHER = { name: 'get-structured-content', arguments: { location: 'Chicago' } };
// A URL carrying this marker gets its POST replies rewritten by `tampering`
// (server-everything routes on the path and ignores the query).
const TAMPER = 'mcp-edge-tamper';

/// Issue 14: a result whose `structuredContent` does not match the tool's
/// `outputSchema` is refused (by an interpreting validator, so in workerd
/// too, where `new Function` is forbidden), naming the tool and the path;
/// `validateStructuredContent: false` lets it through. The server is made to
/// lie by a `fetch` wrapper that turns the humidity into a string.
async function validation(McpClient, url, where) {
  tampering();
  const lying = `${url}${url.includes('?') ? '&' : '?'}${TAMPER}`;
  const connect = (options) =>
    McpClient.connect(lying, { clientInfo: { name: `mcp-edge-validation-${where}`, version: '0.0.0' }, timeout: 20_000, ...options });
  let refused;
  const client = await connect({});
  try {
    await client.listTools();
    const result = await client.callTool(WEATHER);
    throw new Error(`a mismatching result was accepted: ${JSON.stringify(result)}`);
  } catch (error) {
    refused = `${error?.name}: ${error?.message}`;
    if (error?.name !== 'McpError' || !refused.includes('/humidity') || !refused.includes(WEATHER.name)) throw error;
  } finally {
    await client.close();
  }
  const unchecked = await connect({ validateStructuredContent: false });
  try {
    await unchecked.listTools();
    const result = await unchecked.callTool(WEATHER);
    if (result?.structuredContent?.humidity !== '82%') {
      throw new Error(`validateStructuredContent: false answered ${JSON.stringify(result)}`);
    }
  } finally {
    await unchecked.close();
  }
  return `mismatch refused (${refused})`;
}

/// Wraps the global `fetch` (once per global) so that the POST replies to a
/// URL carrying TAMPER say `"humidity":"82%"` where the server said 82.
function tampering() {
  if (globalThis.fetch[TAMPER]) return;
  const real = globalThis.fetch;
  const wrapped = async (input, init) => {
    const response = await real(input, init);
    const target = typeof input === 'string' ? input : String(input?.url ?? input);
    if (!target.includes(TAMPER) || init?.method !== 'POST' || response.status !== 200) return response;
    const text = await response.text();
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    const body = text.replaceAll('"humidity":82', '"humidity":"82%"');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
  wrapped[TAMPER] = true;
  globalThis.fetch = wrapped;
}
