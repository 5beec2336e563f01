// The test page: connects to the protected MCP server given in ?server=
// with the package's defaults for a page (popup sign-in, tokens in
// sessionStorage, redirect URI <origin>/oauth-callback.html), lists the
// tools and calls echo. The outcome goes into #log (text only) and, as JSON,
// into its data-result attribute for the test to read.
//
// ?mode=redirect signs in with a full-page redirect instead (and
// ?redirectUri= overrides the redirect URI); like an app would, the page
// notes that it was connecting and connects again when it comes back.
// With ?complete=1 it first hands its URL to McpClient.completeAuthorization
// (what it resolved is the result's `completed`).
// ?store=localStorage keeps tokens there (shared by the origin's tabs);
// ?store=app in the page's own `{ load, save, clear }` (async, over the Map
// window.appRecords);
// window.burst(n) connects and makes n concurrent echo calls.
// ?entry=lite loads `mcp-edge/lite` (/pkg/lite.js) instead of `mcp-edge`.

const RESUME = 'oauth-test:resume';
const params = new URLSearchParams(location.search);
let settings = {
  server: params.get('server') ?? '',
  mode: params.get('mode') ?? 'popup',
  redirectUri: params.get('redirectUri') ?? undefined,
  store: params.get('store') ?? undefined,
  entry: params.get('entry') ?? 'full',
  complete: params.get('complete') === '1',
};
const resume = sessionStorage.getItem(RESUME);
if (resume) {
  sessionStorage.removeItem(RESUME);
  settings = JSON.parse(resume);
}
const { server } = settings;
// Loaded before the first click is handled (connect awaits it).
const loaded = import(settings.entry === 'lite' ? '/pkg/lite.js' : '/pkg/index.js');
const log = document.getElementById('log');
document.getElementById('server').textContent = server;

function line(text, kind) {
  const row = document.createElement('div');
  row.textContent = text;
  if (kind) row.className = kind;
  log.append(row);
}

// The app's own token store: records in a Map, each method async.
window.appRecords = new Map();
const appStore = {
  load: async (key) => window.appRecords.get(key) ?? null,
  save: async (key, value) => {
    window.appRecords.set(key, value);
  },
  clear: async (key) => {
    window.appRecords.delete(key);
  },
};

const auth = () => ({
  authorize: settings.mode,
  redirectUri: settings.redirectUri,
  store: settings.store === 'app' ? appStore : settings.store,
  clientName: 'mcp-edge OAuth popup test',
  authorizationTimeout: 60000,
});

async function connect() {
  const { McpClient } = await loaded;
  return McpClient.connect(server, {
    clientInfo: { name: 'oauth-popup-test', version: '1.0.0' },
    timeout: 20000,
    auth: auth(),
  });
}

/** Connects with the kept tokens and makes `count` concurrent echo calls. */
window.burst = async (count) => {
  try {
    const client = await connect();
    const calls = Array.from({ length: count }, (_, n) =>
      client.callTool({ name: 'echo', arguments: { message: `burst ${n}` } }).then((r) => r.content?.[0]?.text ?? ''),
    );
    const echoes = await Promise.all(calls);
    await client.close();
    return { ok: true, echoes };
  } catch (error) {
    return { ok: false, message: String(error?.message ?? error) };
  }
};

let runs = 0;
async function run() {
  const run = ++runs;
  log.replaceChildren();
  delete log.dataset.result;
  line('connecting…');
  if (settings.mode === 'redirect') sessionStorage.setItem(RESUME, JSON.stringify(settings));
  let result;
  let completed;
  try {
    if (resume && settings.complete) {
      const { McpClient } = await loaded;
      completed = await McpClient.completeAuthorization(location.href, { auth: auth() });
      line(`completeAuthorization: ${completed}`);
    }
    const client = await connect();
    line(`connected over ${client.transport}`);
    const { tools } = await client.listTools();
    line(`tools: ${tools.map((tool) => tool.name).join(', ')}`);
    const called = await client.callTool({ name: 'echo', arguments: { message: 'hello through OAuth' } });
    const echo = called.content?.[0]?.text ?? '';
    line(`echo: ${echo}`, 'ok');
    await client.close();
    result = { ok: true, transport: client.transport, tools: tools.map((tool) => tool.name), echo, completed };
  } catch (error) {
    line(`${error?.name ?? 'Error'}: ${error?.message ?? error}`, 'failed');
    result = { ok: false, name: error?.name, message: String(error?.message ?? error) };
  }
  sessionStorage.removeItem(RESUME);
  log.dataset.result = JSON.stringify({ run, ...result });
  // The test reads this from the console: polling the page from the test
  // would run script with a user gesture, which lets popups through.
  console.info(`oauth-test-result ${log.dataset.result}`);
}

document.getElementById('connect').addEventListener('click', run);

/** Connects from a module Web Worker with these auth options (no window there). */
window.workerConnect = (auth) =>
  new Promise((resolve) => {
    const worker = new Worker('/worker.js', { type: 'module' });
    const done = (outcome) => {
      clearTimeout(timer);
      worker.terminate();
      resolve(outcome);
    };
    const timer = setTimeout(() => done({ ok: false, message: 'the worker gave no answer within 30 s' }), 30000);
    worker.onmessage = (event) => done(event.data);
    worker.onerror = (event) => done({ ok: false, message: `worker error: ${event.message}` });
    worker.postMessage({ server, auth, entry: settings.entry });
  });
// ?auto=1: connect on load, with no click (the popup blocker must refuse).
// Back from a redirect-mode sign-in: connect again, which finishes it.
if (params.get('auto') === '1' || resume) run();
