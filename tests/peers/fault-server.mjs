// The fault catalog: one adversarial MCP server with many ways to misbehave,
// for tests/faults.rs (native), tests/npm/faults.mjs (the packed package in
// Node 22) and tests/browser_faults.rs (Chromium). Node 20+, node:http only.
//
// Every mode is reached by its path: /mode/<name>/mcp is a Streamable HTTP
// MCP endpoint (legacy modes also answer GET with the HTTP+SSE stream) that
// is correct except for one fault. Each mode carries what the spec implies a
// client must do, so the runners in every runtime share one table:
//
//   op      what the runner does: "call" (connect, call `echo` with
//           {text: TEXT}), "list" (connect, list every tool, page by page),
//           "connect" (connect only)
//   expect  { ok: <the exact result> }: "text" (echo's text is TEXT),
//           "tools:<n>" (n tools, distinct names), "connected";
//           or { error: <kind>, phrase: <text the message must contain> }:
//           kind "timeout" (within the caller's timeout plus slack), "rpc:<code>",
//           "http:<status>", "expired", or "fail" (any other typed error; it
//           must come fast, well before the caller's timeout)
//   options transport ("streamable-http" unless said), era ("handshake"
//           unless said)
//   web     false when the mode cannot mean the same in a browser (what fetch
//           hides or does itself); the JS runner in Node runs every mode
//   timeoutMs  the caller's timeout for this mode, when the default is too
//           short to move its bytes on a loaded machine
//
// GET /modes lists the table as JSON. The runners use a 3 s timeout.
// A second listener (port in the `listening` line's `other=` and in /modes)
// is another origin, for redirects and legacy endpoints that leave the
// origin; it records what reached it (GET /leaks).
//
// Every response carries CORS headers, so browsers can run the HTTP modes.
import http from "node:http";
import zlib from "node:zlib";

const TEXT = "catalog ✓ ünïcødé 😀";
const TIMEOUT_MS = 3000;
const PROTOCOL = "2025-11-25";
const KNOWN_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

// ---------------------------------------------------------------------------
// The correct server, and the helpers the modes use
// ---------------------------------------------------------------------------

let nextSession = 1;
const leaks = []; // requests that reached the other origin: { path, session, authorization }
const hits = new Map(); // mode -> how many times its fault was reached (for "only the first time" modes)

const cors = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
  "Access-Control-Allow-Headers": "*",
  "Access-Control-Expose-Headers": "*",
  "Access-Control-Max-Age": "600",
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const result = (id, value) => ({ jsonrpc: "2.0", id, result: value });
const rpcError = (id, code, message) => ({ jsonrpc: "2.0", id, error: { code, message } });

// The correct answer to one request.
function answer(message, name) {
  const { id, method, params } = message;
  switch (method) {
    case "initialize": {
      const asked = params?.protocolVersion;
      return result(id, {
        protocolVersion: KNOWN_VERSIONS.includes(asked) ? asked : PROTOCOL,
        capabilities: { tools: {} },
        serverInfo: { name: `fault-${name}`, version: "1.0.0" },
      });
    }
    case "ping":
      return result(id, {});
    case "tools/list":
      return result(id, { tools: [echoTool("echo")] });
    case "tools/call":
      return result(id, { content: [{ type: "text", text: String(params?.arguments?.text ?? "") }] });
    default:
      return rpcError(id, -32601, `method not found: ${method}`);
  }
}

const echoTool = (name) => ({ name, inputSchema: { type: "object", properties: { text: { type: "string" } } } });

function headers(res, extra = {}) {
  for (const [k, v] of Object.entries({ ...cors, ...extra })) res.setHeader(k, v);
}

function sendJson(ctx, body, status = 200, extra = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  headers(ctx.res, { "Content-Type": "application/json", ...sessionHeader(ctx), ...extra });
  ctx.res.writeHead(status);
  ctx.res.end(text);
}

const sessionHeader = (ctx) => (ctx.session ? { "Mcp-Session-Id": ctx.session } : {});

const event = (data, { id, name, eol = "\n" } = {}) =>
  `${id != null ? `id: ${id}${eol}` : ""}${name ? `event: ${name}${eol}` : ""}data: ${data}${eol}${eol}`;

function sseHead(ctx, status = 200, extra = {}) {
  headers(ctx.res, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", ...sessionHeader(ctx), ...extra });
  ctx.res.writeHead(status);
  ctx.res.flushHeaders();
}

// Writes `text` as separate chunks of `size` bytes, `gap` ms apart.
async function drip(res, text, size = 1, gap = 0) {
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += size) {
    if (res.destroyed) return;
    res.write(bytes.subarray(i, i + size));
    await (gap > 0 ? sleep(gap) : new Promise((resolve) => setImmediate(resolve)));
  }
}

const json = (message) => JSON.stringify(message);
const status = (code, body = "", type = "text/plain") => (ctx) => {
  headers(ctx.res, { "Content-Type": type });
  ctx.res.writeHead(code);
  ctx.res.end(body);
};
const html = (title) => `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1><hr><center>nginx</center></body></html>`;
const firstTime = (name) => {
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  return n === 1;
};

// A mode's fault as an SSE reply to its request: `frame(answer)` gives the
// body text.
const sseReply = (frame) => (ctx) => {
  sseHead(ctx);
  ctx.res.end(frame(json(ctx.answer), ctx));
};
const jsonReply = (transform) => (ctx) => sendJson(ctx, transform(ctx.answer, ctx));

// ---------------------------------------------------------------------------
// The catalog
// ---------------------------------------------------------------------------

const ok = (what = "text") => ({ ok: what });
const fail = (error, phrase) => ({ error, phrase });

// Each mode: at (the method whose request meets the fault; "initialize",
// "tools/call", "tools/list", or "*" for every request), run(ctx), op,
// expect, options, web.
const modes = {};
function mode(name, spec) {
  if (modes[name]) throw new Error(`duplicate mode ${name}`);
  modes[name] = { at: "tools/call", op: "call", web: true, options: {}, ...spec };
}

// --- SSE framing (the reply to tools/call is an event stream) ---------------
mode("sse-lf", { expect: ok(), run: sseReply((a) => event(a)) });
mode("sse-crlf", { expect: ok(), run: sseReply((a) => event(a, { id: "1", eol: "\r\n" })) });
mode("sse-cr", { expect: ok(), run: sseReply((a) => event(a, { id: "1", eol: "\r" })) });
mode("sse-mixed-eol", { expect: ok(), run: sseReply((a) => `: hi\r\nid: 1\rdata: ${a}\n\r\n`) });
mode("sse-split-every-byte", {
  expect: ok(),
  run: async (ctx) => {
    sseHead(ctx);
    await drip(ctx.res, `: priming\r\n\r\nid: 7\r\nevent: message\r\ndata: ${json(ctx.answer)}\r\n\r\n`);
    ctx.res.end();
  },
});
mode("sse-split-crlf-pairs", {
  expect: ok(),
  run: async (ctx) => {
    // Every CR and LF of a CRLF in its own chunk.
    sseHead(ctx);
    for (const part of [`data: ${json(ctx.answer)}`, "\r", "\n", "\r", "\n"]) {
      ctx.res.write(part);
      await sleep(5);
    }
    ctx.res.end();
  },
});
mode("sse-bom", { expect: ok(), run: sseReply((a) => `\uFEFFdata: ${a}\n\n`) });
mode("sse-comments", { expect: ok(), run: sseReply((a) => `:\n: keep-alive\n\n:x\ndata: ${a}\n: after\n\n`) });
mode("sse-nul-in-id", { expect: ok(), run: sseReply((a) => `id: a\u0000b\ndata: ${a}\n\n`) });
mode("sse-bad-retry", { expect: ok(), run: sseReply((a) => `retry: soon\nretry: -5\nretry: 1e3\ndata: ${a}\n\n`) });
mode("sse-no-space-after-colon", { expect: ok(), run: sseReply((a) => `id:1\nevent:message\ndata:${a}\n\n`) });
mode("sse-unknown-fields", { expect: ok(), run: sseReply((a) => `foo: bar\nDATA: x\ndata: ${a}\nbaz\n\n`) });
mode("sse-data-split-lines", {
  // JSON may hold the newline the parser puts between two `data` lines.
  expect: ok(),
  run: sseReply((a) => `data: ${a.slice(0, 10)}\ndata: ${a.slice(10)}\n\n`),
});
mode("sse-empty-priming-event", { expect: ok(), run: sseReply((a) => `id: p0\ndata:\n\nid: p1\ndata: ${a}\n\n`) });
mode("sse-notifications-first", {
  expect: ok(),
  run: sseReply(
    (a) =>
      event(json({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } })) +
      event(json({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "x", progress: 1 } })) +
      event(a),
  ),
});
mode("sse-utf8-split-in-char", {
  expect: ok(),
  run: async (ctx) => {
    sseHead(ctx);
    const bytes = Buffer.from(`data: ${json(ctx.answer)}\n\n`, "utf8");
    const emoji = bytes.indexOf(Buffer.from("😀"));
    ctx.res.write(bytes.subarray(0, emoji + 2));
    await sleep(20);
    ctx.res.end(bytes.subarray(emoji + 2));
  },
});
mode("sse-other-event-type-ignored", {
  // Events of another type are not MCP messages: only `message` counts.
  expect: ok(),
  run: sseReply((a) => `event: ping\ndata: not json\n\n` + event(a, { name: "message" })),
});
mode("sse-partial-final-event", {
  // The stream ends inside the event that holds the answer: the spec
  // discards an incomplete event, so there is no answer.
  expect: fail("fail", "before answering"),
  run: sseReply((a) => `data: ${a}\n`),
});
mode("sse-ends-without-answer", { expect: fail("fail", "before answering"), run: sseReply(() => `: nothing\n\n`) });
mode("sse-server-request-first", {
  // A server request (ping) on the reply stream, which the client answers.
  expect: ok(),
  run: sseReply((a) => event(json({ jsonrpc: "2.0", id: "srv-1", method: "ping" })) + event(a)),
});
mode("sse-invalid-json-event", {
  // A garbled event then the real answer: the garbage is dropped, not fatal.
  expect: ok(),
  run: sseReply((a) => `data: {not json\n\n` + event(a)),
});

// --- JSON-RPC envelopes -----------------------------------------------------
mode("rpc-error", {
  expect: fail("rpc:-32000", "tool exploded"),
  run: jsonReply((a) => rpcError(a.id, -32000, "tool exploded: the flux capacitor is out of flux")),
});
mode("rpc-error-with-data", {
  expect: fail("rpc:-32602", "bad arguments"),
  run: jsonReply((a) => ({ jsonrpc: "2.0", id: a.id, error: { code: -32602, message: "bad arguments", data: { at: [1] } } })),
});
mode("rpc-wrong-id", { expect: fail("fail", "response"), run: jsonReply((a) => ({ ...a, id: 424242 })) });
mode("rpc-id-mistyped", {
  // "2" is not 2: a JSON-RPC id keeps its type.
  expect: fail("fail", "response"),
  run: jsonReply((a) => ({ ...a, id: String(a.id) })),
});
mode("rpc-duplicate-response", { expect: ok(), run: sseReply((a) => event(a) + event(a)) });
mode("rpc-batch-reply", { expect: ok(), run: jsonReply((a) => [a]) });
mode("rpc-batch-with-notification", {
  expect: ok(),
  run: jsonReply((a) => [{ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: 1 } }, a]),
});
mode("rpc-result-and-error", {
  expect: fail("fail", "both"),
  run: jsonReply((a) => ({ ...a, error: { code: -32000, message: "tool exploded" } })),
});
mode("rpc-error-without-code", {
  expect: fail("fail", "code"),
  run: jsonReply((a) => ({ jsonrpc: "2.0", id: a.id, error: { message: "tool exploded" } })),
});
mode("rpc-null-id-error", {
  // The server could not read our request: its own words reach the user.
  expect: fail("fail", "tool exploded"),
  run: jsonReply(() => rpcError(null, -32700, "tool exploded while parsing")),
});
mode("rpc-missing-jsonrpc", {
  expect: fail("fail", "jsonrpc"),
  run: jsonReply((a) => ({ id: a.id, result: a.result })),
});
mode("rpc-trailing-garbage", { expect: fail("fail", "trailing"), run: (ctx) => sendJson(ctx, json(ctx.answer) + " }garbage") });
mode("rpc-nan", {
  expect: fail("fail", "expected value"),
  run: (ctx) => sendJson(ctx, `{"jsonrpc":"2.0","id":${ctx.message.id},"result":{"content":[],"x":NaN}}`),
});
mode("rpc-deep-nesting", {
  expect: fail("fail", "recursion"),
  run: (ctx) => sendJson(ctx, `{"jsonrpc":"2.0","id":${ctx.message.id},"result":${"[".repeat(10000)}${"]".repeat(10000)}}`),
});
mode("rpc-empty-body", { expect: fail("fail", "empty"), run: (ctx) => sendJson(ctx, "") });
mode("rpc-null-result", { expect: fail("fail", "malformed"), run: jsonReply((a) => ({ ...a, result: null })) });
mode("rpc-extra-fields", {
  expect: ok(),
  run: jsonReply((a) => ({ ...a, extra: [1, 2], result: { ...a.result, _meta: { x: 1 }, unknown: true } })),
});
mode("rpc-unicode-escapes", {
  expect: ok(),
  run: (ctx) =>
    sendJson(
      ctx,
      json(ctx.answer).replace(/[^\x00-\x7f]/gu, (c) =>
        [...c].map((ch) => {
          const cp = ch.codePointAt(0);
          if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, "0")}`;
          const v = cp - 0x10000;
          return `\\u${(0xd800 + (v >> 10)).toString(16)}\\u${(0xdc00 + (v & 0x3ff)).toString(16)}`;
        }).join(""),
      ),
    ),
});
mode("rpc-missing-capabilities", {
  // initialize without `capabilities` is a malformed result, not "no tools".
  at: "initialize",
  op: "connect",
  expect: fail("fail", "capabilities"),
  run: jsonReply((a) => ({ ...a, result: { protocolVersion: a.result.protocolVersion, serverInfo: a.result.serverInfo } })),
});
mode("rpc-unsupported-version", {
  at: "initialize",
  op: "connect",
  expect: fail("fail", "1999-01-01"),
  run: jsonReply((a) => ({ ...a, result: { ...a.result, protocolVersion: "1999-01-01" } })),
});

// --- HTTP: statuses, content types, codings, redirects ----------------------
const jsonRpcBody = (message) => json(rpcError(null, -32000, message));
mode("http-400-json-error", {
  expect: fail("http:400", "bad request from the gateway"),
  run: status(400, jsonRpcBody("bad request from the gateway"), "application/json"),
});
mode("http-404-always", {
  // 404 to a request with a session: the session is gone; one new session
  // is tried, and when that fails too the error says so.
  expect: fail("expired", "session"),
  run: status(404, "Not Found"),
});
mode("http-405", { expect: fail("http:405", "405"), run: status(405, "Method Not Allowed") });
mode("http-406", { expect: fail("http:406", "406"), run: status(406, "Not Acceptable") });
mode("http-413", { expect: fail("http:413", "413"), run: status(413, html("413 Request Entity Too Large"), "text/html") });
mode("http-429", { expect: fail("http:429", "429"), run: status(429, "Too Many Requests") });
mode("http-500-html", { expect: fail("http:500", "500"), run: status(500, html("500 Internal Server Error"), "text/html") });
mode("http-502-html", { expect: fail("http:502", "502"), run: status(502, html("502 Bad Gateway"), "text/html") });
mode("http-503", { expect: fail("http:503", "503"), run: status(503, "Service Unavailable") });
mode("http-504-html", { expect: fail("http:504", "504"), run: status(504, html("504 Gateway Time-out"), "text/html") });
mode("http-429-retry-after", {
  // Retry-After within the caller's timeout is honoured: the retry succeeds.
  expect: ok(),
  run: (ctx) => (firstTime(ctx.name) ? status(429, "slow down", "text/plain")(withRetryAfter(ctx)) : jsonReply((a) => a)(ctx)),
});
mode("http-503-retry-after-first-request", {
  at: "initialize",
  expect: ok(),
  run: (ctx) => (firstTime(ctx.name) ? status(503, "starting up")(withRetryAfter(ctx)) : jsonReply((a) => a)(ctx)),
});
mode("http-200-html", {
  // A captive portal or a proxy's login page.
  expect: fail("fail", "text/html"),
  run: status(200, html("Please sign in"), "text/html"),
});
mode("http-json-no-content-type", {
  expect: fail("fail", "Content-Type"),
  run: (ctx) => {
    headers(ctx.res, sessionHeader(ctx));
    ctx.res.writeHead(200);
    ctx.res.end(json(ctx.answer));
  },
});
mode("http-json-text-plain", {
  expect: fail("fail", "text/plain"),
  run: (ctx) => sendJson(ctx, ctx.answer, 200, { "Content-Type": "text/plain" }),
});
mode("http-json-charset", {
  expect: ok(),
  run: (ctx) => sendJson(ctx, ctx.answer, 200, { "Content-Type": "application/json; charset=utf-8" }),
});
mode("http-content-type-uppercase", {
  expect: ok(),
  run: (ctx) => sendJson(ctx, ctx.answer, 200, { "Content-Type": "Application/JSON" }),
});
mode("http-json-bom", {
  // Browsers strip a UTF-8 BOM before JSON; native must agree.
  expect: ok(),
  run: (ctx) => sendJson(ctx, "\uFEFF" + json(ctx.answer)),
});
for (const [coding, encode] of [
  ["gzip", zlib.gzipSync],
  ["deflate", zlib.deflateSync],
  ["br", zlib.brotliCompressSync],
]) {
  mode(`http-${coding}-json`, {
    expect: ok(),
    run: (ctx) => {
      headers(ctx.res, { "Content-Type": "application/json", "Content-Encoding": coding, ...sessionHeader(ctx) });
      ctx.res.writeHead(200);
      ctx.res.end(encode(Buffer.from(json(ctx.answer))));
    },
  });
}
mode("http-gzip-sse", {
  expect: ok(),
  run: (ctx) => {
    sseHead(ctx, 200, { "Content-Encoding": "gzip" });
    ctx.res.end(zlib.gzipSync(Buffer.from(event(json(ctx.answer)))));
  },
});
for (const code of [307, 308]) {
  mode(`http-${code}-same-origin`, {
    expect: ok(),
    // A page cannot see where a redirect leads, so a request carrying the
    // session id is not redirected there: a named error, at once.
    browserExpect: fail("fail", "use the URL it redirects to"),
    run: (ctx) => redirect(ctx, code, `/mode/${ctx.name}/moved`),
  });
}
mode("http-307-cross-origin", {
  // A redirect to another origin must not carry the session there: refused.
  expect: fail("fail", "redirect"),
  run: (ctx) => redirect(ctx, 307, `http://127.0.0.1:${otherPort}/mode/${ctx.name}/moved`),
});
mode("http-redirect-loop", { expect: fail("fail", "redirect"), run: (ctx) => redirect(ctx, 307, `/mode/${ctx.name}/mcp`) });
mode("http-reset-after-headers", {
  expect: fail("fail", ""),
  run: (ctx) => {
    headers(ctx.res, { "Content-Type": "application/json", "Content-Length": "500" });
    ctx.res.writeHead(200);
    ctx.res.write('{"jsonrpc":"2.0",');
    setTimeout(() => ctx.res.socket?.destroy(), 50);
  },
});
mode("http-reset-before-headers", { expect: fail("fail", ""), run: (ctx) => ctx.req.socket.destroy() });
mode("http-202-to-request", {
  // 202 means "no reply"; a request needs one, so this fails at once.
  expect: fail("fail", "202"),
  run: (ctx) => {
    headers(ctx.res, sessionHeader(ctx));
    ctx.res.writeHead(202);
    ctx.res.end();
  },
});

// --- Sessions ----------------------------------------------------------------
mode("session-expired-once", {
  // 404 once: the client starts a new session and the call succeeds.
  expect: ok(),
  run: (ctx) => (firstTime(ctx.name) ? status(404, "no such session")(ctx) : jsonReply((a) => a)(ctx)),
});
mode("session-id-changes", {
  // A new id on a later reply: the client keeps the one of initialize.
  expect: ok(),
  run: (ctx) => sendJson(ctx, ctx.answer, 200, { "Mcp-Session-Id": `other-${nextSession++}` }),
});
mode("session-id-with-space", {
  at: "initialize",
  op: "connect",
  expect: fail("fail", "Mcp-Session-Id"),
  run: (ctx) => sendJson(ctx, ctx.answer, 200, { "Mcp-Session-Id": "has space" }),
});
mode("session-id-non-ascii", {
  at: "initialize",
  op: "connect",
  // Not silently dropped (and then misread as the wrong transport).
  expect: fail("fail", "Mcp-Session-Id"),
  // A browser's fetch hands the page such a value decoded as Latin-1.
  web: false,
  run: (ctx) => {
    headers(ctx.res, { "Content-Type": "application/json" });
    ctx.res.setHeader("Mcp-Session-Id", "sess-\u00e9");
    ctx.res.writeHead(200);
    ctx.res.end(json(ctx.answer));
  },
});
mode("session-id-long", {
  at: "initialize",
  expect: ok(),
  run: (ctx) => sendJson(ctx, ctx.answer, 200, { "Mcp-Session-Id": "s".repeat(4096) }),
});
mode("session-required-400", {
  // A server that lost the session and says so with 400 instead of 404.
  expect: fail("http:400", "session"),
  run: status(400, jsonRpcBody("Bad Request: No valid session ID provided"), "application/json"),
});

// --- Sizes --------------------------------------------------------------------
mode("size-huge-line", {
  timeoutMs: 20000,
  // One 4 MiB SSE data line (the text is checked exactly by length marker).
  expect: ok("text"),
  run: sseReply((_, ctx) => event(json(result(ctx.message.id, { content: [{ type: "text", text: TEXT }], pad: "x".repeat(4 << 20) })))),
});
mode("size-huge-json-body", {
  timeoutMs: 20000,
  expect: ok("text"),
  run: jsonReply((a) => ({ ...a, result: { ...a.result, pad: "y".repeat(12 << 20) } })),
});
mode("size-event-over-limit", {
  timeoutMs: 20000,
  // One event larger than the 16 MiB limit: named, not "ended before answering".
  expect: fail("fail", "limit"),
  run: async (ctx) => {
    sseHead(ctx);
    ctx.res.write(`data: {"jsonrpc":"2.0","id":${ctx.message.id},"result":{"pad":"`);
    const chunk = "z".repeat(1 << 20);
    for (let i = 0; i < 17 && !ctx.res.destroyed; i++) {
      if (!ctx.res.write(chunk)) await new Promise((resolve) => ctx.res.once("drain", resolve));
    }
    ctx.res.end(`"}}\n\n`);
  },
});
mode("size-endless-stream", {
  expect: fail("timeout", ""),
  run: async (ctx) => {
    sseHead(ctx);
    while (!ctx.res.destroyed && !ctx.res.writableEnded) {
      ctx.res.write(event(json({ jsonrpc: "2.0", method: "notifications/message", params: { level: "debug", data: "x".repeat(1000) } })));
      await sleep(2);
    }
  },
});
mode("size-endless-json-body", {
  expect: fail("timeout", ""),
  run: async (ctx) => {
    headers(ctx.res, { "Content-Type": "application/json", ...sessionHeader(ctx) });
    ctx.res.writeHead(200);
    ctx.res.write(`{"jsonrpc":"2.0","id":${ctx.message.id},"result":{"content":[`);
    while (!ctx.res.destroyed) {
      ctx.res.write(" ".repeat(4096));
      await sleep(5);
    }
  },
});
mode("size-10000-tools-one-page", {
  timeoutMs: 20000,
  at: "tools/list",
  op: "list",
  expect: ok("tools:10000"),
  run: jsonReply((a) => ({ ...a, result: { tools: Array.from({ length: 10000 }, (_, i) => echoTool(`tool-${i}`)) } })),
});
mode("size-10000-tools-100-pages", {
  timeoutMs: 20000,
  at: "tools/list",
  op: "list",
  expect: ok("tools:10000"),
  run: (ctx) => {
    const page = Number(ctx.message.params?.cursor ?? 0);
    const tools = Array.from({ length: 100 }, (_, i) => echoTool(`tool-${page * 100 + i}`));
    sendJson(ctx, result(ctx.message.id, page < 99 ? { tools, nextCursor: String(page + 1) } : { tools }));
  },
});
mode("size-cursor-loop", {
  // The same cursor again: the client must stop, not loop forever.
  at: "tools/list",
  op: "list",
  expect: fail("fail", "cursor"),
  run: jsonReply((a) => ({ ...a, result: { tools: [echoTool("again")], nextCursor: "same" } })),
});

// --- Timing --------------------------------------------------------------------
mode("timing-drip-json", {
  expect: ok(),
  run: async (ctx) => {
    headers(ctx.res, { "Content-Type": "application/json", ...sessionHeader(ctx) });
    ctx.res.writeHead(200);
    await drip(ctx.res, json(ctx.answer), 3, 10);
    ctx.res.end();
  },
});
mode("timing-drip-sse", {
  expect: ok(),
  run: async (ctx) => {
    sseHead(ctx);
    await drip(ctx.res, event(json(ctx.answer), { id: "1" }), 4, 8);
    ctx.res.end();
  },
});
mode("timing-keepalive-then-answer", {
  expect: ok(),
  // 1.2 s of deliberate delay: room for a loaded machine running modes at once.
  timeoutMs: 10000,
  run: async (ctx) => {
    sseHead(ctx);
    for (let i = 0; i < 8; i++) {
      ctx.res.write(": keep-alive\n\n");
      await sleep(150);
    }
    ctx.res.end(event(json(ctx.answer)));
  },
});
mode("timing-slow-headers", {
  expect: ok(),
  timeoutMs: 10000,
  run: async (ctx) => {
    await sleep(1000);
    sendJson(ctx, ctx.answer);
  },
});
const stall = () => new Promise(() => {});
mode("timing-stall-before-headers", { expect: fail("timeout", ""), run: stall });
mode("timing-stall-after-headers", {
  expect: fail("timeout", ""),
  run: (ctx) => {
    headers(ctx.res, { "Content-Type": "application/json" });
    ctx.res.writeHead(200);
    ctx.res.flushHeaders();
  },
});
mode("timing-stall-mid-json", {
  expect: fail("timeout", ""),
  run: (ctx) => {
    headers(ctx.res, { "Content-Type": "application/json" });
    ctx.res.writeHead(200);
    ctx.res.write(json(ctx.answer).slice(0, 20));
  },
});
mode("timing-stall-sse-after-priming", {
  expect: fail("timeout", ""),
  run: (ctx) => {
    sseHead(ctx);
    ctx.res.write("id: 1\ndata:\n\n");
  },
});
mode("timing-stall-initialize", { at: "initialize", op: "connect", expect: fail("timeout", ""), run: stall });
mode("timing-stall-initialize-auto", {
  // Era and transport detected: the probe and initialize share one deadline.
  at: "*",
  op: "connect",
  options: { transport: "auto", era: "auto" },
  expect: fail("timeout", ""),
  run: stall,
});
mode("timing-stall-tools-list", { at: "tools/list", op: "list", expect: fail("timeout", ""), run: stall });

// --- Legacy HTTP+SSE transport -------------------------------------------------
// POST to /mcp is refused (405), GET opens the stream whose first event names
// the endpoint; answers come on the stream.
const legacy = (name, spec) => mode(name, { at: "legacy", options: { transport: "auto", era: "auto" }, ...spec });
legacy("legacy-ok", { expect: ok(), endpoint: (ctx) => `/mode/${ctx.name}/messages?session=${ctx.session}` });
legacy("legacy-forced", {
  options: { transport: "sse", era: "handshake" },
  expect: ok(),
  endpoint: (ctx) => `/mode/${ctx.name}/messages?session=${ctx.session}`,
});
legacy("legacy-absolute-endpoint", {
  expect: ok(),
  endpoint: (ctx) => `http://127.0.0.1:${mainPort}/mode/${ctx.name}/messages?session=${ctx.session}`,
});
legacy("legacy-relative-dot-endpoint", { expect: ok(), endpoint: (ctx) => `messages?session=${ctx.session}` });
legacy("legacy-crlf-endpoint", {
  expect: ok(),
  eol: "\r\n",
  endpoint: (ctx) => `/mode/${ctx.name}/messages?session=${ctx.session}`,
});
legacy("legacy-cross-origin-endpoint", {
  expect: fail("fail", "origin"),
  endpoint: (ctx) => `http://127.0.0.1:${otherPort}/mode/${ctx.name}/messages?session=${ctx.session}`,
});
legacy("legacy-no-endpoint", {
  options: { transport: "sse", era: "handshake" },
  expect: fail("timeout", "endpoint"),
  endpoint: null,
});
legacy("legacy-stream-closes", {
  // The stream ends when the first request comes, unanswered, and the
  // server refuses new streams: the request fails at once.
  options: { transport: "sse", era: "handshake" },
  expect: fail("fail", ""),
  closeOnPost: true,
  endpoint: (ctx) => `/mode/${ctx.name}/messages?session=${ctx.session}`,
});

// --- Authorization edge cases ----------------------------------------------------
mode("auth-401-no-metadata", {
  at: "initialize",
  op: "connect",
  expect: fail("http:401", "401"),
  run: status(401, "Unauthorized"),
});
mode("auth-403-no-token", { at: "initialize", op: "connect", expect: fail("http:403", "403"), run: status(403, "Forbidden") });
mode("auth-401-malformed-challenge", {
  at: "initialize",
  op: "connect",
  expect: fail("http:401", "401"),
  run: (ctx) => status(401, "")(withHeader(ctx, "WWW-Authenticate", 'Bearer realm="unterminated, ,,, =x')),
});
mode("auth-401-on-call", {
  // Authorization required only for tools: the error comes from the call.
  expect: fail("http:401", "401"),
  run: (ctx) => status(401, "")(withHeader(ctx, "WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1:${mainPort}/nowhere"`)),
});

function withHeader(ctx, name, value) {
  ctx.res.setHeader(name, value);
  return ctx;
}
const withRetryAfter = (ctx) => withHeader(ctx, "Retry-After", "1");

function redirect(ctx, code, location) {
  headers(ctx.res, { Location: location });
  ctx.res.writeHead(code);
  ctx.res.end();
}

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on("data", (part) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

const legacyStreams = new Map(); // session -> res of its SSE stream

async function handle(req, res, isOther) {
  const url = new URL(req.url, "http://127.0.0.1");
  if (req.method === "OPTIONS") {
    headers(res);
    res.writeHead(204);
    return res.end();
  }
  if (url.pathname === "/modes") {
    headers(res, { "Content-Type": "application/json" });
    res.writeHead(200);
    const table = Object.entries(modes).map(([name, m]) => ({
      name,
      op: m.op,
      expect: m.expect,
      browserExpect: m.browserExpect ?? null,
      transport: m.options.transport ?? "streamable-http",
      era: m.options.era ?? "handshake",
      web: m.web,
      timeoutMs: m.timeoutMs ?? TIMEOUT_MS,
    }));
    return res.end(json({ text: TEXT, timeoutMs: TIMEOUT_MS, otherPort, modes: table }));
  }
  if (url.pathname === "/leaks") {
    headers(res, { "Content-Type": "application/json" });
    res.writeHead(200);
    return res.end(json(leaks));
  }
  const match = /^\/mode\/([^/]+)\/(mcp|moved|messages)$/.exec(url.pathname);
  const spec = match && modes[match[1]];
  if (!spec) {
    headers(res);
    res.writeHead(404);
    return res.end("no such mode");
  }
  const name = match[1];
  const session = req.headers["mcp-session-id"];
  if (isOther) leaks.push({ mode: name, path: url.pathname, session: session ?? null, authorization: req.headers.authorization ?? null });

  if (spec.at === "legacy") return handleLegacy(req, res, url, name, spec, match[2]);

  if (req.method === "GET") {
    headers(res);
    res.writeHead(405, { Allow: "POST, DELETE" });
    return res.end();
  }
  if (req.method === "DELETE") {
    headers(res);
    res.writeHead(200);
    return res.end();
  }
  if (req.method !== "POST") {
    headers(res);
    res.writeHead(405);
    return res.end();
  }
  const text = await readBody(req);
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return sendJson({ res }, rpcError(null, -32700, "parse error"), 400);
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const request = messages.find((m) => m && m.method && m.id !== undefined);
  const isInit = request?.method === "initialize";
  const ctx = { req, res, name, message: request, session: isInit ? `sess-${nextSession++}` : session, answer: null };
  if (!request) {
    // Notifications and responses only.
    headers(res, sessionHeader(ctx));
    res.writeHead(202);
    return res.end();
  }
  ctx.answer = answer(request, name);
  // /moved (where redirects lead, on either origin) is the correct server.
  const faulty = match[2] === "mcp" && (spec.at === "*" || spec.at === request.method);
  if (faulty) return spec.run(ctx);
  return sendJson(ctx, ctx.answer);
}

// The legacy HTTP+SSE transport: GET opens the stream, POSTs to the endpoint
// are accepted with 202 and answered on the stream.
async function handleLegacy(req, res, url, name, spec, what) {
  if (what === "mcp" && req.method === "GET" && spec.closeOnPost && hits.has(name)) {
    headers(res);
    res.writeHead(410);
    return res.end("gone");
  }
  if (what === "mcp" && req.method === "GET") {
    const session = `leg-${nextSession++}`;
    const eol = spec.eol ?? "\n";
    headers(res, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    res.writeHead(200);
    res.flushHeaders();
    legacyStreams.set(session, res);
    res.on("close", () => legacyStreams.delete(session));
    if (spec.endpoint) res.write(`event: endpoint${eol}data: ${spec.endpoint({ name, session })}${eol}${eol}`);
    return;
  }
  if (req.method !== "POST") {
    headers(res);
    res.writeHead(405);
    return res.end();
  }
  if (what === "mcp") {
    // A Streamable HTTP POST: this is a legacy-only server.
    await readBody(req);
    headers(res);
    res.writeHead(405, { Allow: "GET" });
    return res.end("Method Not Allowed");
  }
  const stream = legacyStreams.get(url.searchParams.get("session") ?? "");
  const text = await readBody(req);
  headers(res);
  if (!stream) {
    res.writeHead(404);
    return res.end("no such session");
  }
  res.writeHead(202);
  res.end("Accepted");
  if (spec.closeOnPost) {
    hits.set(name, 1);
    return stream.end();
  }
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return;
  }
  if (message.id !== undefined && message.method) {
    stream.write(`event: message\ndata: ${json(answer(message, name))}\n\n`);
  }
}

function serve(isOther) {
  return (req, res) => {
    handle(req, res, isOther).catch((e) => {
      console.error(`fault-server: ${e?.stack ?? e}`);
      if (!res.headersSent) {
        res.writeHead(500);
        res.end(String(e));
      }
    });
  };
}

const main = http.createServer(serve(false));
const other = http.createServer(serve(true));
let mainPort = 0;
let otherPort = 0;
await new Promise((resolve) => other.listen(0, "127.0.0.1", resolve));
otherPort = other.address().port;
await new Promise((resolve) => main.listen(Number(process.env.PORT ?? 0), "127.0.0.1", resolve));
mainPort = main.address().port;
// The first line is what the test support reads; /modes says the rest.
console.log(`listening http://127.0.0.1:${mainPort}`);
console.log(`${Object.keys(modes).length} modes; the other origin is http://127.0.0.1:${otherPort}`);
