// A protected MCP server and its OAuth 2.1 authorization server in one
// node:http process, for the browser tests of the OAuth popup flow. Every
// answer carries permissive CORS headers (the test page is on another
// origin).
//
//   /mcp                                       MCP (Streamable HTTP, stateless, JSON answers):
//                                              401 + WWW-Authenticate until a Bearer token it issued
//                                              is presented; then initialize, tools/list, tools/call echo
//   /.well-known/oauth-protected-resource/mcp  RFC 9728 metadata
//   /.well-known/oauth-authorization-server    RFC 8414 metadata (PKCE S256, DCR, RFC 9207 iss)
//   POST /register                             RFC 7591 dynamic client registration (public clients)
//   GET /authorize                             a tiny consent page: "Allow" / "Deny"
//   POST /authorize/decision                   redirects to redirect_uri with code+state (or error)
//   POST /token                                authorization_code with PKCE verification, refresh_token,
//                                              client_credentials for the confidential client
//                                              worker-client / worker-secret (HTTP Basic)
//   GET /__test/config?forgeState=1|0          test control: answer with a forged state;
//                     &noCors=1|0              send no CORS headers from the authorization server's
//                                              endpoints (metadata, registration, token)
//
// Run alone: `PORT=4000 node oauth-server.mjs`; or import `start()`.
// Nothing secret is ever logged: the request log keeps method and path only.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const b64url = (buffer) => buffer.toString('base64url');
const random = (bytes = 24) => b64url(randomBytes(bytes));

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** A pre-registered confidential client for the client credentials grant. */
export const CONFIDENTIAL_CLIENT = { id: 'worker-client', secret: 'worker-secret' };

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers':
    'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, dpop',
  'access-control-expose-headers': 'www-authenticate, mcp-session-id',
  'access-control-max-age': '600',
};

/**
 * Starts the servers on `host:port` (port 0: any free one). Resolves with
 * `{ origin, mcpUrl, state, close() }`; `state` is the live test state
 * (issued tokens, the request log, the forge switch).
 */
/** The authorization server's endpoints (which `noCors` strips CORS from). */
const AS_PATHS = new Set([
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/register',
  '/token',
]);

export function start({ host = '127.0.0.1', port = 0 } = {}) {
  const state = {
    forgeState: false,
    noCors: false,
    clients: new Map(), // client_id -> registration
    requests: new Map(), // consent request id -> authorization request
    codes: new Map(), // code -> grant
    tokens: new Set(), // access tokens issued
    refreshTokens: new Map(), // refresh token -> client_id
    log: [], // "METHOD /path" (never a query, never a header)
    urls: [], // full request URLs, so a test can check no token ever went into one
    authorizations: 0,
  };
  let origin = '';

  const send = (response, status, headers, body = '') => {
    const path = new URL(response.req?.url ?? '/', 'http://x').pathname;
    const cors = state.noCors && AS_PATHS.has(path) ? {} : CORS;
    response.writeHead(status, { ...cors, 'cache-control': 'no-store', ...headers });
    response.end(body);
  };
  const json = (response, status, value, headers = {}) =>
    send(response, status, { 'content-type': 'application/json', ...headers }, JSON.stringify(value));
  const oauthError = (response, status, error, description) =>
    json(response, status, { error, error_description: description });

  const readBody = (request) =>
    new Promise((resolve, reject) => {
      let size = 0;
      const chunks = [];
      request.on('data', (chunk) => {
        size += chunk.length;
        if (size > 64 * 1024) {
          reject(new Error('body too large'));
          request.destroy();
        } else chunks.push(chunk);
      });
      request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      request.on('error', reject);
    });

  const metadata = () => ({
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
    scopes_supported: ['mcp:tools'],
    authorization_response_iss_parameter_supported: true,
  });

  function bearer(request) {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    return match && state.tokens.has(match[1]) ? match[1] : null;
  }

  function consentPage(id, authorization, client) {
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize ${escapeHtml(client.client_name ?? 'an app')}</title>
<meta name="referrer" content="no-referrer">
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 26rem; padding: 0 1rem; color: #1d1d1f; }
  .card { border: 1px solid #d2d2d7; border-radius: 12px; padding: 1.25rem 1.5rem; }
  h1 { font-size: 1.25rem; margin: 0 0 .75rem; }
  code { background: #f5f5f7; padding: 0 .25rem; border-radius: 4px; }
  button { font: inherit; padding: .5rem 1.25rem; border-radius: 8px; border: 1px solid #0071e3; cursor: pointer; }
  #allow { background: #0071e3; color: white; }
  #deny { background: white; color: #0071e3; margin-left: .5rem; }
</style></head>
<body><div class="card">
<h1>Test authorization server</h1>
<p><strong>${escapeHtml(client.client_name ?? client.client_id)}</strong> asks to use the MCP server
<code>${escapeHtml(authorization.resource ?? '(no resource)')}</code>
with the scopes <code>${escapeHtml(authorization.scope || '(none)')}</code>.</p>
<form method="post" action="/authorize/decision">
<input type="hidden" name="request" value="${escapeHtml(id)}">
<button id="allow" name="decision" value="allow" type="submit">Allow</button>
<button id="deny" name="decision" value="deny" type="submit">Deny</button>
</form></div></body></html>`;
  }

  async function handleMcp(request, response) {
    if (request.method !== 'POST') return send(response, 405, { allow: 'POST' });
    if (!bearer(request)) {
      return send(response, 401, {
        'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`,
        'content-type': 'application/json',
      }, JSON.stringify({ error: 'invalid_token', error_description: 'Missing or unknown bearer token' }));
    }
    let message;
    try {
      message = JSON.parse(await readBody(request));
    } catch {
      return json(response, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    if (message.id === undefined) return send(response, 202, {});
    const reply = (result) => json(response, 200, { jsonrpc: '2.0', id: message.id, result });
    const fail = (code, text) => json(response, 200, { jsonrpc: '2.0', id: message.id, error: { code, message: text } });
    switch (message.method) {
      case 'initialize':
        return reply({
          protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'oauth-test-server', version: '1.0.0' },
        });
      case 'ping':
        return reply({});
      case 'tools/list':
        return reply({
          tools: [
            {
              name: 'echo',
              description: 'Echoes the message back',
              inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
            },
          ],
        });
      case 'tools/call':
        if (message.params?.name !== 'echo') return fail(-32602, 'Unknown tool');
        return reply({ content: [{ type: 'text', text: `Echo: ${message.params?.arguments?.message ?? ''}` }] });
      default:
        return fail(-32601, 'Method not found');
    }
  }

  async function handleRegister(request, response) {
    let body;
    try {
      body = JSON.parse(await readBody(request));
    } catch {
      return oauthError(response, 400, 'invalid_client_metadata', 'the body is not JSON');
    }
    const redirects = Array.isArray(body.redirect_uris) ? body.redirect_uris.filter((u) => typeof u === 'string') : [];
    if (redirects.length === 0) return oauthError(response, 400, 'invalid_redirect_uri', 'redirect_uris is required');
    const client = {
      client_id: `client-${random(9)}`,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      client_name: typeof body.client_name === 'string' ? body.client_name.slice(0, 100) : undefined,
      redirect_uris: redirects,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    state.clients.set(client.client_id, client);
    return json(response, 201, client);
  }

  function handleAuthorize(url, response) {
    const q = url.searchParams;
    const client = state.clients.get(q.get('client_id') ?? '');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!client || !client.redirect_uris.includes(redirectUri)) {
      // Never redirect to an unregistered URI: show the error here.
      return send(response, 400, { 'content-type': 'text/plain' }, 'unknown client or redirect_uri');
    }
    const problem =
      q.get('response_type') !== 'code'
        ? 'unsupported_response_type'
        : q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')
          ? 'invalid_request'
          : null;
    if (problem) {
      const back = new URL(redirectUri);
      back.searchParams.set('error', problem);
      if (q.get('state')) back.searchParams.set('state', q.get('state'));
      return send(response, 302, { location: back.href });
    }
    const id = random(12);
    const authorization = {
      clientId: client.client_id,
      redirectUri,
      state: q.get('state') ?? '',
      challenge: q.get('code_challenge'),
      scope: q.get('scope') ?? '',
      resource: q.get('resource') ?? undefined,
      at: Date.now(),
    };
    state.requests.set(id, authorization);
    return send(response, 200, { 'content-type': 'text/html; charset=utf-8' }, consentPage(id, authorization, client));
  }

  async function handleDecision(request, response) {
    const form = new URLSearchParams(await readBody(request));
    const authorization = state.requests.get(form.get('request') ?? '');
    if (!authorization) return send(response, 400, { 'content-type': 'text/plain' }, 'unknown or used request');
    state.requests.delete(form.get('request'));
    const back = new URL(authorization.redirectUri);
    const answeredState = state.forgeState ? `forged-${random(8)}` : authorization.state;
    if (form.get('decision') === 'allow') {
      const code = random(24);
      state.codes.set(code, { ...authorization, at: Date.now() });
      state.authorizations += 1;
      back.searchParams.set('code', code);
    } else {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user said no');
    }
    back.searchParams.set('state', answeredState);
    back.searchParams.set('iss', origin);
    return send(response, 302, { location: back.href });
  }

  function issue(clientId, scope) {
    const access = `at-${random(24)}`;
    const refresh = `rt-${random(24)}`;
    state.tokens.add(access);
    state.refreshTokens.set(refresh, { clientId, scope });
    return { access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: refresh, scope };
  }

  async function handleToken(request, response) {
    const form = new URLSearchParams(await readBody(request));
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') {
      const code = form.get('code') ?? '';
      const granted = state.codes.get(code);
      state.codes.delete(code); // once
      if (!granted || Date.now() - granted.at > 60_000) {
        return oauthError(response, 400, 'invalid_grant', 'unknown, used or expired code');
      }
      if (form.get('client_id') !== granted.clientId || form.get('redirect_uri') !== granted.redirectUri) {
        return oauthError(response, 400, 'invalid_grant', 'client_id or redirect_uri differs from the authorization');
      }
      const verifier = form.get('code_verifier') ?? '';
      if (b64url(createHash('sha256').update(verifier).digest()) !== granted.challenge) {
        return oauthError(response, 400, 'invalid_grant', 'PKCE verification failed');
      }
      if (form.get('resource') !== granted.resource) {
        return oauthError(response, 400, 'invalid_target', 'resource differs from the authorization');
      }
      return json(response, 200, issue(granted.clientId, granted.scope));
    }
    if (grant === 'client_credentials') {
      const basic = /^Basic\s+(.+)$/i.exec(request.headers.authorization ?? '');
      const [id, secret] = basic ? Buffer.from(basic[1], 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
      if (id !== CONFIDENTIAL_CLIENT.id || secret !== CONFIDENTIAL_CLIENT.secret) {
        return oauthError(response, 401, 'invalid_client', 'unknown client or wrong secret');
      }
      return json(response, 200, issue(id, form.get('scope') ?? ''));
    }
    if (grant === 'refresh_token') {
      const old = form.get('refresh_token') ?? '';
      const known = state.refreshTokens.get(old);
      state.refreshTokens.delete(old); // rotated
      if (!known || known.clientId !== form.get('client_id')) {
        return oauthError(response, 400, 'invalid_grant', 'unknown refresh token');
      }
      return json(response, 200, issue(known.clientId, known.scope));
    }
    return oauthError(response, 400, 'unsupported_grant_type', `grant_type ${grant} is not supported`);
  }

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', origin || 'http://localhost');
    state.log.push(`${request.method} ${url.pathname}`);
    state.urls.push(url.href);
    try {
      if (request.method === 'OPTIONS') return send(response, 204, {});
      switch (url.pathname) {
        case '/mcp':
          return await handleMcp(request, response);
        case '/.well-known/oauth-protected-resource/mcp':
          return json(response, 200, {
            resource: `${origin}/mcp`,
            authorization_servers: [origin],
            scopes_supported: ['mcp:tools'],
          });
        case '/.well-known/oauth-authorization-server':
          return json(response, 200, metadata());
        case '/register':
          return request.method === 'POST' ? await handleRegister(request, response) : send(response, 405, {});
        case '/authorize':
          return handleAuthorize(url, response);
        case '/authorize/decision':
          return request.method === 'POST' ? await handleDecision(request, response) : send(response, 405, {});
        case '/token':
          return request.method === 'POST' ? await handleToken(request, response) : send(response, 405, {});
        case '/__test/config':
          if (url.searchParams.has('forgeState')) state.forgeState = url.searchParams.get('forgeState') === '1';
          if (url.searchParams.has('noCors')) state.noCors = url.searchParams.get('noCors') === '1';
          return json(response, 200, { forgeState: state.forgeState, noCors: state.noCors });
        default:
          return send(response, 404, { 'content-type': 'text/plain' }, 'not found');
      }
    } catch (error) {
      if (!response.headersSent) send(response, 500, { 'content-type': 'text/plain' }, 'internal error');
      else response.destroy();
    }
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      origin = `http://${host}:${address.port}`;
      resolve({
        origin,
        mcpUrl: `${origin}/mcp`,
        state,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const running = await start({ port: Number(process.env.PORT ?? 0) });
  // First line: where it listens, for a test that let it pick the port
  // (`Server::announced` in tests/support/native.rs).
  console.log(`listening ${running.origin}`);
  console.log(`OAuth test server: MCP at ${running.mcpUrl}, authorization server at ${running.origin}`);
}
