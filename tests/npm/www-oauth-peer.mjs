// A small MCP server that requires OAuth, with its own authorization
// server on the same origin, for the www/ inspector test (node built-ins
// only). It speaks just enough MCP over Streamable HTTP (JSON answers, no
// session): initialize, tools/list and tools/call of one tool, `whoami`,
// which tells which token the request carried. Without a valid token /mcp
// answers 401 with the protected resource metadata (RFC 9728); the
// authorization server does metadata (RFC 8414), dynamic registration
// (RFC 7591), a consent page with an "Allow" button, and the code exchange
// with PKCE S256. Everything answers CORS, as a real deployment for
// browser clients must, allowing whatever request headers the preflight
// asks for (2026-07-28's `Mcp-Method`, `Mcp-Name`, ... on the era probe).
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id',
  'access-control-expose-headers': 'www-authenticate, mcp-session-id',
};

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const b64url = (buffer) => buffer.toString('base64url');

async function body(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the server on 127.0.0.1; resolves to `{url, origin, close, tokensIssued}`. */
export async function startOAuthPeer() {
  const codes = new Map(); // code -> {challenge, redirectUri, clientId}
  const tokens = new Set();
  let clients = 0;
  let origin = '';

  const send = (response, status, value, headers = {}) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    response.writeHead(status, {
      ...CORS,
      'content-type': typeof value === 'string' ? 'text/html; charset=utf-8' : 'application/json',
      'cache-control': 'no-store',
      ...headers,
    });
    response.end(text);
  };

  const mcp = (message, token) => {
    const { id, method } = message;
    const result = (value) => ({ jsonrpc: '2.0', id, result: value });
    switch (method) {
      case 'initialize':
        return result({
          protocolVersion: message.params?.protocolVersion ?? '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'oauth-test-server', title: 'OAuth Test Server', version: '1.0.0' },
          instructions: 'A test server behind OAuth.',
        });
      case 'ping':
        return result({});
      case 'tools/list':
        return result({
          tools: [{
            name: 'whoami',
            title: 'Who am I',
            description: 'Tells which access token the request carried',
            inputSchema: { type: 'object', properties: {} },
          }],
        });
      case 'tools/call':
        return result({ content: [{ type: 'text', text: `signed in: token ${token.slice(0, 8)}… accepted` }] });
      default:
        return { jsonrpc: '2.0', id, error: { code: -32601, message: `unknown method ${method}` } };
    }
  };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url, origin);
    try {
      if (request.method === 'OPTIONS') {
        const asked = request.headers['access-control-request-headers'];
        response.writeHead(204, asked ? { ...CORS, 'access-control-allow-headers': asked } : CORS).end();
        return;
      }
      switch (`${request.method} ${url.pathname}`) {
        case 'GET /.well-known/oauth-protected-resource/mcp':
        case 'GET /.well-known/oauth-protected-resource':
          return send(response, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
        case 'GET /.well-known/oauth-authorization-server':
          return send(response, 200, {
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            registration_endpoint: `${origin}/register`,
            response_types_supported: ['code'],
            grant_types_supported: ['authorization_code'],
            code_challenge_methods_supported: ['S256'],
            token_endpoint_auth_methods_supported: ['none'],
          });
        case 'POST /register': {
          const metadata = JSON.parse(await body(request) || '{}');
          clients += 1;
          return send(response, 201, { ...metadata, client_id: `client-${clients}`, token_endpoint_auth_method: 'none' });
        }
        case 'GET /authorize': {
          const q = url.searchParams;
          if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
            return send(response, 400, '<p>bad authorization request</p>');
          }
          const code = b64url(randomBytes(16));
          codes.set(code, { challenge: q.get('code_challenge'), redirectUri: q.get('redirect_uri'), clientId: q.get('client_id') });
          const back = new URL(q.get('redirect_uri'));
          back.searchParams.set('code', code);
          back.searchParams.set('state', q.get('state') ?? '');
          back.searchParams.set('iss', origin);
          const deny = new URL(q.get('redirect_uri'));
          deny.searchParams.set('error', 'access_denied');
          deny.searchParams.set('state', q.get('state') ?? '');
          return send(response, 200, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:2.5rem auto;max-width:26rem;padding:0 1rem;color:#222}
a{display:inline-block;padding:.5rem 1.2rem;border-radius:6px;text-decoration:none;margin-right:.5rem}
#allow{background:#2457c5;color:#fff}#deny{border:1px solid #ccc;color:#222}</style></head><body>
<h1>Test authorization server</h1>
<p><b>${escape(q.get('client_id'))}</b> asks to use the MCP server <code>${escape(q.get('resource') ?? '')}</code>.</p>
<p><a id="allow" href="${escape(back.href)}">Allow</a><a id="deny" href="${escape(deny.href)}">Deny</a></p>
</body></html>`);
        }
        case 'POST /token': {
          const form = new URLSearchParams(await body(request));
          const grant = codes.get(form.get('code'));
          codes.delete(form.get('code'));
          const verifier = form.get('code_verifier') ?? '';
          const challenge = b64url(createHash('sha256').update(verifier).digest());
          if (form.get('grant_type') !== 'authorization_code' || !grant || grant.challenge !== challenge
              || grant.redirectUri !== form.get('redirect_uri')) {
            return send(response, 400, { error: 'invalid_grant' });
          }
          const token = b64url(randomBytes(24));
          tokens.add(token);
          return send(response, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
        }
        case 'POST /mcp': {
          const token = (request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
          if (!tokens.has(token)) {
            return send(response, 401, { error: 'unauthorized' }, {
              'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
            });
          }
          const message = JSON.parse(await body(request));
          if (message.id === undefined) {
            response.writeHead(202, CORS).end();
            return;
          }
          return send(response, 200, mcp(message, token));
        }
        case 'GET /mcp':
        case 'DELETE /mcp':
          response.writeHead(405, { ...CORS, allow: 'POST' }).end();
          return;
        default:
          return send(response, 404, { error: 'not found' });
      }
    } catch (error) {
      send(response, 500, { error: String(error) });
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    tokensIssued: () => tokens.size,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(resolve);
    }),
  };
}
