// A certified authorization server (panva's oidc-provider, pinned in
// package.json) protecting an MCP server built from the official TS SDK, in
// one process, with every request logged. For tests/oidc.rs and the OAuth
// browser test (tests/oauth-browser).
//
// The authorization server is configured as issue 15 describes a careful
// deployment: dynamic registration, PKCE required, resource indicators
// (RFC 8707) with JWT access tokens (ES256) whose audience is the MCP
// server, refresh tokens rotated on every use, and a reused refresh token
// revokes the whole grant (oidc-provider's default, RFC 9700). DPoP is on
// (oidc-provider's default), so its metadata advertises it; the MCP server
// takes Bearer tokens only (`requireBearerAuth`) unless `dpop` is set.
//
// Signing in is scripted: /interaction/:uid logs the user in and grants what
// the client asked for at once (no page), so a client that follows the
// redirects with cookies (a browser, or the native tests' authorizer) comes
// back with a code.
//
//   /mcp                                        MCP (Streamable HTTP, stateless, JSON answers), tool echo
//   /.well-known/oauth-protected-resource/mcp   RFC 9728 metadata
//   /.well-known/openid-configuration, /auth, /token, /reg, /jwks ...   oidc-provider
//   GET /__log                                  the request log (JSON): method, path, status, and for
//                                               the token endpoint grant_type, client, token_type; for
//                                               registrations the redirect URIs; for /mcp the scheme
//   GET /__config?name=value                    test control (the same names as OIDC_CONFIG)
//
// Settings (env OIDC_CONFIG, JSON, or /__config): accessTtl (s, default 3600),
// refreshDelayMs (delay before answering a refresh_token grant), refresh
// ("always": a refresh token with every code, else only with offline_access,
// oidc-provider's default), strictRedirect (registration refuses port-less
// loopback redirect URIs and authorization matches redirect URIs exactly, as
// an AS that ignores RFC 8252 §7.3 would), dpop ("required": the MCP server
// asks for DPoP-bound tokens in its metadata and challenge).
//
// Run alone: `PORT=4000 node oidc-server.mjs` prints `listening <mcp url>`;
// or import `start()`. Nothing secret is logged.
import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import { calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import Provider from 'oidc-provider';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { z } from 'zod';

const CORS = {
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers':
    'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, dpop',
  'access-control-expose-headers': 'www-authenticate, mcp-session-id, dpop-nonce',
  'access-control-max-age': '600',
};

/** A pre-registered confidential client (client_secret_basic). */
export const CONFIDENTIAL_CLIENT = { id: 'oidc-confidential', secret: 'oidc-confidential-secret-value' };

async function signingKeys() {
  const keys = [];
  for (const alg of ['ES256', 'RS256']) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(privateKey);
    keys.push({ ...jwk, alg, use: 'sig', kid: `${alg.toLowerCase()}-${randomBytes(4).toString('hex')}` });
  }
  return keys;
}

const isLoopbackWithoutPort = (uri) => {
  const url = URL.parse(uri);
  return url?.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname) && url.port === '';
};

/** Resolves with `{ origin, mcpUrl, log, settings, close() }`. */
export async function start({ host = '127.0.0.1', port = 0, settings: given = {} } = {}) {
  const settings = { accessTtl: 3600, refreshDelayMs: 0, refresh: 'always', strictRedirect: false, dpop: '', ...given };
  const log = [];
  const app = express();
  const server = await new Promise((resolve) => {
    const listening = app.listen(port, host, () => resolve(listening));
  });
  const origin = `http://${host}:${server.address().port}`;
  const mcpUrl = `${origin}/mcp`;
  const prmUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
  const keys = await signingKeys();
  const publicKeys = createLocalJWKSet({
    keys: keys.map(({ d, p, q, dp, dq, qi, ...pub }) => pub),
  });

  const provider = new Provider(origin, {
    clients: [
      {
        client_id: CONFIDENTIAL_CLIENT.id,
        client_secret: CONFIDENTIAL_CLIENT.secret,
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        redirect_uris: [`http://127.0.0.1/callback`],
        application_type: 'native',
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    scopes: ['openid', 'offline_access', 'mcp:tools'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (resourceIndicator !== mcpUrl) throw new Provider.errors.InvalidTarget();
          return {
            scope: 'mcp:tools',
            audience: mcpUrl,
            accessTokenTTL: Number(settings.accessTtl),
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && (settings.refresh === 'always' || code.scopes.has('offline_access')),
    // Every refresh rotates the refresh token; presenting a used one revokes the grant (oidc-provider's rule).
    rotateRefreshToken: () => true,
    clientBasedCORS: () => true,
    ttl: { RefreshToken: 3600, Grant: 3600, Session: 3600, Interaction: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  });
  provider.on('grant.revoked', (_ctx, grantId) => log.push({ event: 'grant.revoked', grant: grantId.slice(0, 6) }));
  provider.on('grant.success', (ctx) => {
    const entry = ctx.req.logEntry;
    if (entry) Object.assign(entry, { token_type: ctx.body?.token_type, refresh_token: Boolean(ctx.body?.refresh_token), scope: ctx.body?.scope });
  });
  provider.on('grant.error', (ctx, error) => {
    if (ctx.req.logEntry) Object.assign(ctx.req.logEntry, { error: error.error, error_description: error.error_description });
  });
  provider.on('server_error', (_ctx, error) => console.error(`oidc-provider server_error: ${error}`));

  // The request log: one entry per request, filled in when it ends.
  app.use((request, response, next) => {
    const entry = { method: request.method, path: request.path };
    log.push(entry);
    const origin = request.headers.origin;
    if (origin) {
      // Whatever headers the page's preflight asks for (MCP adds its own).
      const asked = request.headers['access-control-request-headers'];
      response.set({ ...CORS, 'access-control-allow-origin': origin, ...(asked ? { 'access-control-allow-headers': asked } : {}) });
    }
    if (request.method === 'OPTIONS' && origin) {
      response.status(204).end();
      return;
    }
    if (request.path === '/mcp') entry.scheme = (request.headers.authorization ?? '').split(' ')[0] || null;
    response.on('finish', () => {
      entry.status = response.statusCode;
    });
    request.logEntry = entry;
    next();
  });

  app.get('/__log', (_request, response) => response.json(log));
  app.get('/__config', (request, response) => {
    for (const [name, value] of Object.entries(request.query)) {
      settings[name] = value === 'true' ? true : value === 'false' ? false : value;
    }
    response.json(settings);
  });

  app.post('/token', express.urlencoded({ extended: false }), async (request, _response, next) => {
    const entry = request.logEntry;
    entry.grant_type = request.body?.grant_type;
    entry.dpop = Boolean(request.headers.dpop);
    const basic = (request.headers.authorization ?? '').startsWith('Basic ');
    entry.client = request.body?.client_id ?? (basic ? 'basic' : null);
    if (entry.grant_type === 'refresh_token' && Number(settings.refreshDelayMs) > 0) {
      await new Promise((resolve) => setTimeout(resolve, Number(settings.refreshDelayMs)));
    }
    next();
  });

  app.post('/reg', express.json(), (request, response, next) => {
    const uris = request.body?.redirect_uris ?? [];
    request.logEntry.redirect_uris = uris;
    request.logEntry.scope = request.body?.scope;
    if (settings.strictRedirect && uris.some(isLoopbackWithoutPort)) {
      response.status(400).json({ error: 'invalid_redirect_uri', error_description: 'redirect URIs need a port here' });
      return;
    }
    next();
  });

  app.get('/auth', async (request, response, next) => {
    const { client_id: clientId, redirect_uri: redirectUri, scope, prompt } = request.query;
    Object.assign(request.logEntry, { client: clientId, redirect_uri: redirectUri, scope, prompt });
    if (settings.strictRedirect) {
      const client = await provider.Client.find(String(clientId ?? ''));
      if (client && !client.redirectUris.includes(String(redirectUri))) {
        response.status(400).type('text').send('invalid_redirect_uri: not registered (exact match required)');
        return;
      }
    }
    next();
  });

  // The scripted user: signs in as "user" and grants what was asked.
  app.get('/interaction/:uid', async (request, response, next) => {
    try {
      const details = await provider.interactionDetails(request, response);
      const { prompt, params, session, grantId } = details;
      request.logEntry.prompt = prompt.name;
      if (prompt.name === 'login') {
        await provider.interactionFinished(request, response, { login: { accountId: 'user' } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = grantId
        ? await provider.Grant.find(grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const missing = prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(' '));
      }
      const saved = await grant.save();
      await provider.interactionFinished(request, response, { consent: { grantId: saved } }, { mergeWithLastSubmission: true });
    } catch (error) {
      next(error);
    }
  });

  const dpopRequired = () => settings.dpop === 'required';
  app.get('/.well-known/oauth-protected-resource/mcp', (_request, response) => {
    const metadata = { resource: mcpUrl, authorization_servers: [origin], scopes_supported: ['mcp:tools'] };
    if (dpopRequired()) {
      metadata.dpop_bound_access_tokens_required = true;
      metadata.dpop_signing_alg_values_supported = ['ES256'];
    }
    response.json(metadata);
  });

  const verifier = {
    async verifyAccessToken(token) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, publicKeys, { issuer: origin, audience: mcpUrl }));
      } catch (error) {
        const { InvalidTokenError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js');
        throw new InvalidTokenError(`the access token is not valid: ${error.code ?? error.message}`);
      }
      return {
        token,
        clientId: String(payload.client_id ?? ''),
        scopes: String(payload.scope ?? '').split(' ').filter(Boolean),
        expiresAt: payload.exp,
        resource: new URL(mcpUrl),
        extra: { cnf: payload.cnf },
      };
    },
  };
  const bearer = requireBearerAuth({ verifier, requiredScopes: ['mcp:tools'], resourceMetadataUrl: prmUrl });

  /** A resource that requires DPoP (RFC 9449 §7): the proof is checked against the token's cnf.jkt. */
  async function dpopAuth(request, response, next) {
    const challenge = (description) => {
      response.set('WWW-Authenticate', `DPoP error="invalid_token", error_description="${description}", algs="ES256", resource_metadata="${prmUrl}"`);
      response.status(401).json({ error: 'invalid_token', error_description: description });
    };
    const [scheme, token] = (request.headers.authorization ?? '').split(' ');
    const proof = request.headers.dpop;
    if (scheme?.toLowerCase() !== 'dpop' || !token || typeof proof !== 'string') return challenge('DPoP-bound token required');
    try {
      const info = await verifier.verifyAccessToken(token);
      const { jwk } = decodeProtectedHeader(proof);
      const { payload } = await jwtVerify(proof, await (await import('jose')).importJWK(jwk, 'ES256'), { typ: 'dpop+jwt' });
      const ath = createHash('sha256').update(token).digest('base64url');
      if (payload.htm !== request.method || payload.htu !== mcpUrl || payload.ath !== ath) return challenge('the DPoP proof does not match');
      if (info.extra.cnf?.jkt !== (await calculateJwkThumbprint(jwk))) return challenge('the token is not bound to this key');
      if (info.expiresAt < Date.now() / 1000) return challenge('expired');
      request.auth = info;
      next();
    } catch (error) {
      challenge(`invalid: ${error.code ?? error.message}`);
    }
  }

  app.all('/mcp', (request, response, next) => (dpopRequired() ? dpopAuth : bearer)(request, response, next), express.json(), async (request, response) => {
    const mcp = new McpServer({ name: 'oidc-protected-server', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Echoes the message', inputSchema: { message: z.string() } }, async ({ message }) => ({
      content: [{ type: 'text', text: `Echo: ${message}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      transport.close();
      mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, request.body);
  });

  app.use(provider.callback());

  return {
    origin,
    mcpUrl,
    log,
    settings,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const settings = process.env.OIDC_CONFIG ? JSON.parse(process.env.OIDC_CONFIG) : {};
  const running = await start({ port: Number(process.env.PORT ?? 0), settings });
  process.stdout.write(`listening ${running.mcpUrl}\n`);
}
