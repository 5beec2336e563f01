// A small but correct Streamable HTTP MCP server (2025-11-25) that breaks its
// own SSE streams on purpose, for tests/http.rs. Node 20, node:http only.
//
// MCP endpoint: POST/GET/DELETE /mcp. One tool, `burst {count, tag}`, answers
// over SSE: a priming event (id, empty data, optional `retry`), `count`
// `notifications/message` events ({seq, tag, note}), then the response. Every
// event has an id `<streamId>-<n>` and stays in the stream's store, so a GET
// with `Last-Event-ID` replays what followed it, goes on live, and ends after
// the response. Events are released one by one over time, so resumed streams
// see both replayed and live events.
//
// Chaos, from the environment (CHAOS_*), seeded so runs repeat:
//   CUT_POST, CUT_GET  probability that a POST stream / a resumed GET stream is
//                      cut; a cut either stops after a random byte (possibly
//                      inside an event or a UTF-8 character) and destroys the
//                      socket, or (CLEAN_SHARE of the time) ends the response
//                      cleanly between two events
//   RETRY_MS           send `retry: <ms>` in every stream's first event
//   NO_GET_STREAM=1    answer 405 to the standalone GET (resumption still works)
//   SEED, EVENT_GAP_MS PRNG seed; the pause between two released events
//   POST_MIN_EVENTS    a POST stream delivers at least this many whole events
//                      before a cut (default 1: its priming event). A browser
//                      may drop events it received but had not yet handed to
//                      a busy page when the connection breaks; a cut right
//                      after the priming event can then leave no id to resume
// Every response carries CORS headers (see allowCors).
// Control: GET /stats (counters and timings, JSON); POST /control {"expire":
// true} forgets every session (later requests carrying its id get 404).
// Canned failures for error tests: POST /html (200 text/html), /fail500 (500
// with a JSON-RPC error body), /fail400 (400, empty body).
import http from "node:http";

const env = (name, fallback) => process.env[`CHAOS_${name}`] ?? fallback;
const config = {
  cutPost: Number(env("CUT_POST", 0)),
  cutGet: Number(env("CUT_GET", 0)),
  cleanShare: Number(env("CLEAN_SHARE", 0.25)),
  retryMs: env("RETRY_MS", null),
  noGetStream: env("NO_GET_STREAM", "0") === "1",
  eventGapMs: Number(env("EVENT_GAP_MS", 1)),
  postMinEvents: Math.max(1, Number(env("POST_MIN_EVENTS", 1))),
};

// mulberry32: a tiny seeded PRNG.
let seed = Number(env("SEED", 1)) >>> 0;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const started = performance.now();
const now = () => performance.now() - started; // ms since start, for /stats
const stats = {
  cuts: 0, byteCuts: 0, cleanCuts: 0, midEventCuts: 0, midCharCuts: 0, posts: 0, resumes: 0, standaloneGets: 0,
  refused405: 0, expired: 0, deletes: 0, notFound404: 0, cutLog: [], resumeLog: [],
  // The method of every POSTed message, in order.
  methods: [],
};

const sessions = new Map(); // session id -> { streams: Map<streamId, stream> }
let nextSession = 0;
let nextStream = 0;

const sse = (id, data, retry) =>
  Buffer.from(`id: ${id}\n${retry != null ? `retry: ${retry}\n` : ""}data: ${data}\n\n`, "utf8");

// A new burst stream: every event is known up front, released over time.
function burstStream(requestId, { count, tag }) {
  const stream = { id: `s${++nextStream}`, events: [], released: 0, sinks: new Set() };
  const id = (n) => `${stream.id}-${n}`;
  stream.events.push(sse(id(0), "", config.retryMs)); // priming event
  for (let seq = 0; seq < count; seq++) {
    const params = { level: "info", logger: "burst", data: { seq, tag, note: "ünïcødé ✓ 😀" } };
    stream.events.push(sse(id(seq + 1), JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params })));
  }
  const result = { content: [{ type: "text", text: `burst ${tag}: ${count}` }], structuredContent: { count, tag } };
  stream.events.push(sse(id(count + 1), JSON.stringify({ jsonrpc: "2.0", id: requestId, result })));
  const release = () => {
    stream.released++;
    for (const sink of [...stream.sinks]) sink.pump();
    if (stream.released < stream.events.length) setTimeout(release, config.eventGapMs);
  };
  release();
  return stream;
}

// Sends `stream` from event index `from` on `res`, cutting it if the dice say so.
function attach(res, stream, from, isPost) {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  res.flushHeaders();
  const last = stream.events.length - 1;
  let plan = null; // { kind: "bytes", at } or { kind: "clean", after }
  if (random() < (isPost ? config.cutPost : config.cutGet)) {
    const safe = Math.min(config.postMinEvents, last); // a POST stream always delivers its priming event
    const first = isPost ? safe : from;
    if (random() < config.cleanShare && first <= last) {
      plan = { kind: "clean", after: first - 1 + Math.floor(random() * (last - first + 1)) };
      if (plan.after < from) plan.after = from; // at least one event per connection
      if (plan.after >= last) plan = null; // ending after the response is no cut
    } else {
      const skip = isPost ? stream.events.slice(0, safe).reduce((sum, event) => sum + event.length, 0) : 0;
      const total = stream.events.slice(from).reduce((sum, event) => sum + event.length, 0);
      plan = { kind: "bytes", at: skip + Math.floor(random() * (total - skip)) };
    }
  }
  let next = from;
  let written = 0;
  const cut = (kind) => {
    stream.sinks.delete(sink);
    stats.cuts++;
    stats[kind === "bytes" ? "byteCuts" : "cleanCuts"]++;
    stats.cutLog.push({ stream: stream.id, t: now() });
  };
  const sink = {
    pump() {
      while (next < stream.released) {
        const event = stream.events[next];
        if (plan?.kind === "bytes" && written + event.length > plan.at) {
          cut("bytes");
          const prefix = event.subarray(0, plan.at - written);
          if (prefix.length > 0) stats.midEventCuts++;
          if ((event[prefix.length] & 0xc0) === 0x80) stats.midCharCuts++; // next byte continues a character
          if (prefix.length > 0) res.write(prefix);
          // Close the connection under the unfinished response (after what
          // was written is flushed): the client sees a body that breaks off.
          res.socket?.end();
          return;
        }
        res.write(event);
        written += event.length;
        next++;
        if (plan?.kind === "clean" && next - 1 === plan.after) {
          cut("clean");
          return void res.end();
        }
      }
      if (next > last) {
        stream.sinks.delete(sink);
        res.end();
      }
    },
  };
  stream.sinks.add(sink);
  res.on("close", () => stream.sinks.delete(sink));
  sink.pump();
}

const json = (res, status, body, headers = {}) => {
  res.writeHead(status, body === undefined ? headers : { "Content-Type": "application/json", ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
};
const rpcError = (id, code, message) => ({ jsonrpc: "2.0", id, error: { code, message } });

// The session a request names: undefined (none sent), null (unknown: 404 sent) or the session.
function sessionOf(req, res) {
  const id = req.headers["mcp-session-id"];
  if (id === undefined) return undefined;
  const session = sessions.get(id);
  if (!session) {
    stats.notFound404++;
    json(res, 404, rpcError(null, -32001, "Session not found"));
    return null;
  }
  return session;
}

function onPost(req, res, message) {
  stats.posts++;
  stats.methods.push(message.method ?? "(reply)");
  if (message.method === "initialize") {
    const id = `chaos-${++nextSession}-${Math.floor(random() * 1e9).toString(36)}`;
    sessions.set(id, { streams: new Map() });
    const result = {
      protocolVersion: "2025-11-25",
      capabilities: { tools: {}, logging: {} },
      serverInfo: { name: "chaos-server", version: "1.0.0" },
    };
    return json(res, 200, { jsonrpc: "2.0", id: message.id, result }, { "Mcp-Session-Id": id });
  }
  const session = sessionOf(req, res);
  if (session === null) return;
  if (session === undefined) return json(res, 400, rpcError(null, -32000, "Bad Request: Mcp-Session-Id required"));
  if (message.id === undefined || message.method === undefined) return json(res, 202); // notification or response
  if (message.method === "ping") return json(res, 200, { jsonrpc: "2.0", id: message.id, result: {} });
  if (message.method === "tools/list") {
    const inputSchema = { type: "object", properties: { count: { type: "integer" }, tag: { type: "string" } } };
    return json(res, 200, { jsonrpc: "2.0", id: message.id, result: { tools: [{ name: "burst", inputSchema }] } });
  }
  if (message.method === "tools/call" && message.params?.name === "burst") {
    const stream = burstStream(message.id, message.params.arguments ?? {});
    session.streams.set(stream.id, stream);
    return attach(res, stream, 0, true);
  }
  json(res, 200, rpcError(message.id, -32601, `unknown method or tool: ${message.method}`));
}

function onGet(req, res) {
  const session = sessionOf(req, res);
  if (session === null) return;
  if (session === undefined) return json(res, 400, rpcError(null, -32000, "Bad Request: Mcp-Session-Id required"));
  const lastEventId = req.headers["last-event-id"];
  if (lastEventId === undefined) {
    stats.standaloneGets++;
    if (config.noGetStream) {
      stats.refused405++;
      res.writeHead(405, { Allow: "POST, DELETE" });
      return res.end();
    }
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    return res.write(": standalone stream, nothing to say\n\n"); // held open until the client leaves
  }
  const [streamId, n] = lastEventId.split("-");
  const stream = session.streams.get(streamId);
  if (!stream || !(Number(n) >= 0)) return json(res, 400, rpcError(null, -32000, `unknown event id ${lastEventId}`));
  stats.resumes++;
  stats.resumeLog.push({ stream: streamId, lastEventId, t: now() });
  attach(res, stream, Number(n) + 1, false);
}

// CORS, so the browser tests' page (another origin) can use it. `/mcp-hidden`
// is the same endpoint with a CORS policy that forgets to expose
// Mcp-Session-Id: the client must say so, not fail obscurely.
function allowCors(req, res, hideSession) {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
  res.setHeader(
    "Access-Control-Allow-Headers",
    "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id",
  );
  if (!hideSession) res.setHeader("Access-Control-Expose-Headers", "mcp-session-id");
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  const hideSession = url.pathname === "/mcp-hidden";
  if (hideSession) url.pathname = "/mcp";
  allowCors(req, res, hideSession);
  if (req.method === "OPTIONS") return void res.writeHead(204).end();
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    if (url.pathname === "/stats") return json(res, 200, stats);
    if (url.pathname === "/control") {
      const command = JSON.parse(body || "{}");
      if (command.expire) {
        stats.expired += sessions.size;
        sessions.clear();
      }
      return json(res, 200, { ok: true });
    }
    if (url.pathname === "/html") {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      return res.end("<!doctype html><title>Welcome</title><p>This is a web page.</p>");
    }
    if (url.pathname === "/fail500") return json(res, 500, rpcError(null, -32603, "database is on fire"));
    if (url.pathname === "/fail400") return void res.writeHead(400).end();
    if (url.pathname !== "/mcp") return json(res, 404, { error: "not found" });
    if (req.method === "GET") return onGet(req, res);
    if (req.method === "DELETE") {
      const session = sessionOf(req, res);
      if (!session) return session === undefined && json(res, 400, rpcError(null, -32000, "no session"));
      stats.deletes++;
      sessions.delete(req.headers["mcp-session-id"]);
      return json(res, 200);
    }
    if (req.method !== "POST") return json(res, 405, rpcError(null, -32000, "method not allowed"));
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      return json(res, 400, rpcError(null, -32700, "Parse error"));
    }
    onPost(req, res, message);
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () =>
  console.error(`chaos-server listening on ${process.env.PORT} with ${JSON.stringify(config)}`),
);
