// Node 22: `node node-http.mjs <label>`. The Node entry speaks HTTP through
// `node:http` (node-http.js), and steps aside for a `fetch` someone put in
// place of Node's own (a test's mock, an instrumented wrapper), call by
// call. Told apart at the server: undici's `fetch` sends `Sec-Fetch-Mode`,
// `node:http` does not. Then node-http.js's `fetch` on its own, against a
// server of odd answers: what it must keep of `fetch`.
import http from 'node:http';
import zlib from 'node:zlib';
import { McpClient } from 'mcp-edge';
import { startInstantServer } from './instant-server.mjs';

const [label] = process.argv.slice(2);

const seen = [];
const server = await startInstantServer((message, send, res) => {
  seen.push({ method: message.method, undici: res.req.headers['sec-fetch-mode'] !== undefined });
  if (message.method === 'initialize') {
    const result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'h', version: '1' } };
    send({ result });
  } else if (message.method === 'tools/call') {
    send({ result: { content: [{ type: 'text', text: String(message.params?.arguments?.text) }] } });
  } else {
    send({ error: { code: -32601, message: `no method ${message.method}` } });
  }
});

async function echo(client, text) {
  const result = await client.callTool({ name: 'echo', arguments: { text } });
  if (result?.content?.[0]?.text !== text) throw new Error(`echo ${text} answered ${JSON.stringify(result)}`);
  return seen.at(-1);
}

try {
  const client = await McpClient.connect(server.url, { clientInfo: { name: label, version: '0' }, era: 'handshake', timeout: 10_000 });
  try {
    if (seen.some((request) => request.undici)) throw new Error(`the handshake went through fetch: ${JSON.stringify(seen)}`);
    if ((await echo(client, 'one')).undici) throw new Error('a call went through fetch, not node:http');

    const own = globalThis.fetch;
    let wrapped = 0;
    globalThis.fetch = (input, init) => {
      wrapped += 1;
      return own(input, init);
    };
    try {
      if (!(await echo(client, 'two')).undici) throw new Error('with fetch replaced, a call did not reach it');
      if (wrapped !== 1) throw new Error(`the replaced fetch saw ${wrapped} calls, not 1`);
    } finally {
      globalThis.fetch = own;
    }
    if ((await echo(client, 'three')).undici) throw new Error('with fetch Node\'s own again, a call went through it');
  } finally {
    await client.close();
  }
  const checks = await fetchLikeChecks();
  console.log(`OK ${label}: ${seen.length} requests; the handshake and calls through node:http, a call through a replaced fetch while it was in place; ${checks} checks of its fetch`);
  server.close();
  process.exit(0);
} catch (error) {
  console.error(`FAILED ${label}: ${error?.stack ?? error}`);
  server.close();
  process.exit(1);
}

// A server of odd answers, by path.
function oddServer() {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const path = new URL(req.url, 'http://x').pathname;
      const echo = () => JSON.stringify({ method: req.method, path, body, headers: req.headers });
      if (path === '/echo') res.writeHead(200, { 'content-type': 'application/json' }).end(echo());
      else if (path.startsWith('/redirect/')) res.writeHead(Number(path.split('/')[2]), { location: '/echo' }).end('moved');
      else if (path === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else if (path === '/away') res.writeHead(307, { location: `http://localhost:${server.address().port}/echo` }).end();
      else if (path === '/gzip') res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(Buffer.from('squeezed')));
      else if (path === '/empty') res.writeHead(204).end();
      else if (path === '/hold') res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: 1\n\n'); // never ends
      else if (path === '/never') {} // never answers
      else if (path === '/cut') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('part');
        setTimeout(() => res.socket.destroy(), 20);
      } else res.writeHead(404).end('none');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function rejects(promise, test, what) {
  try {
    await promise;
  } catch (error) {
    if (!test(error)) throw new Error(`${what}: rejected with ${error?.name}: ${error?.message} (cause ${error?.cause?.code ?? error?.cause})`);
    return;
  }
  throw new Error(`${what}: did not reject`);
}

async function fetchLikeChecks() {
  const nodeFetch = globalThis[Symbol.for('mcp-edge.fetch')];
  if (typeof nodeFetch !== 'function') throw new Error('the Node entry installed no fetch');
  const odd = await oddServer();
  const base = `http://127.0.0.1:${odd.address().port}`;
  let count = 0;
  const check = (condition, what) => {
    if (!condition) throw new Error(`node-http.js: ${what}`);
    count += 1;
  };
  try {
    const post = (path, init = {}) => nodeFetch(base + path, { method: 'POST', body: 'hello', headers: new Headers({ 'content-type': 'text/plain', 'x-one': '1' }), ...init });

    const plain = await post('/echo');
    check(plain instanceof Response && plain.status === 200 && plain.ok && !plain.redirected, 'a plain answer is a Response, 200');
    const echoed = await plain.json();
    check(echoed.method === 'POST' && echoed.body === 'hello' && echoed.headers['x-one'] === '1', 'method, body and headers sent');
    check(echoed.headers['sec-fetch-mode'] === undefined && echoed.headers['user-agent'] === 'node', 'through node:http, as undici names itself');

    for (const [code, method] of [[301, 'GET'], [302, 'GET'], [303, 'GET'], [307, 'POST'], [308, 'POST']]) {
      const followed = await post(`/redirect/${code}`);
      const seen = await followed.json();
      check(followed.redirected && followed.url === `${base}/echo` && seen.method === method, `a ${code} followed as ${method}`);
      check(method === 'GET' ? seen.body === '' && seen.headers['content-type'] === undefined : seen.body === 'hello', `a ${code} keeps or drops the body`);
      const manual = await post(`/redirect/${code}`, { redirect: 'manual' });
      check(manual.status === code && manual.headers.get('location') === '/echo' && (await manual.text()) === 'moved', `a ${code} given as it is with redirect: manual`);
    }
    const away = await post('/away');
    check(away.redirected && away.url.startsWith('http://localhost:'), 'a redirect to another origin says where it ended');
    await away.arrayBuffer();
    await rejects(post('/loop'), (e) => e instanceof TypeError && /redirect/.test(e.cause?.message), 'a redirect loop');

    const squeezed = await nodeFetch(`${base}/gzip`);
    check((await squeezed.text()) === 'squeezed', 'a gzip body the server sent unasked is decoded');
    const empty = await nodeFetch(`${base}/empty`);
    check(empty.status === 204 && empty.body === null && (await empty.arrayBuffer()).byteLength === 0, 'a 204 has no body');
    const missing = await nodeFetch(`${base}/nowhere`);
    check(missing.status === 404 && !missing.ok && (await missing.text()) === 'none', 'a 404 with its body');

    const streamed = await nodeFetch(`${base}/hold`);
    const reader = streamed.body.getReader();
    const first = await reader.read();
    check(!first.done && Buffer.from(first.value).toString() === 'data: 1\n\n', 'a streamed body read chunk by chunk');
    await reader.cancel();

    const cut = await nodeFetch(`${base}/cut`);
    await rejects(cut.arrayBuffer(), (e) => e instanceof TypeError, 'a body cut short');

    const early = new AbortController();
    const never = nodeFetch(`${base}/never`, { signal: early.signal });
    setTimeout(() => early.abort(), 20);
    await rejects(never, (e) => e?.name === 'AbortError', 'an abort before the answer');
    const late = new AbortController();
    const held = await nodeFetch(`${base}/hold`, { signal: late.signal });
    const heldReader = held.body.getReader();
    await heldReader.read();
    const waiting = heldReader.read();
    late.abort();
    await rejects(waiting, (e) => e instanceof TypeError, 'an abort while the body streams');
    const done = new AbortController();
    const finished = await nodeFetch(`${base}/echo`, { signal: done.signal });
    await finished.arrayBuffer();
    done.abort(); // after the end: the keep-alive socket must not die of it
    const after = await nodeFetch(`${base}/echo`);
    check(after.status === 200 && (await after.json()).method === 'GET', 'a call after an abort that came after its answer');

    // A dispatcher someone set for undici: the call goes to Node's `fetch`,
    // which hands it to that dispatcher (here one that refuses it).
    const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
    const original = globalThis[DISPATCHER];
    let dispatched = 0;
    const dispatch = () => {
      dispatched += 1;
      throw new Error('a dispatcher of the test');
    };
    const proxy = new (class ProxyAgent {
      dispatch = dispatch;
    })();
    const tuned = new (class Agent {
      dispatch = dispatch;
      [Symbol('options')] = { connect: { rejectUnauthorized: false }, interceptors: undefined };
    })();
    try {
      for (const [dispatcher, what] of [[proxy, 'a ProxyAgent'], [tuned, 'an Agent with options']]) {
        globalThis[DISPATCHER] = dispatcher;
        const before = dispatched;
        await rejects(nodeFetch(`${base}/echo`), (e) => e instanceof TypeError, `a call with ${what} set`);
        check(dispatched === before + 1, `a call with ${what} set goes to fetch and its dispatcher`);
      }
    } finally {
      globalThis[DISPATCHER] = original;
    }
    const again = await nodeFetch(`${base}/echo`);
    check((await again.json()).headers['sec-fetch-mode'] === undefined, 'with the dispatcher undici made, node:http again');

    const closed = http.createServer();
    await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = closed.address().port;
    await new Promise((resolve) => closed.close(resolve));
    await rejects(nodeFetch(`http://127.0.0.1:${port}/`), (e) => e instanceof TypeError && e.cause?.code === 'ECONNREFUSED', 'a refused connection');
    await rejects(nodeFetch('not a url'), (e) => e instanceof TypeError, 'a URL that does not parse');
  } finally {
    odd.closeAllConnections();
    odd.close();
  }
  return count;
}
