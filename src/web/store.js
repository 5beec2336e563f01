// Where a token store's records are kept, and how tabs sharing
// `auth.store: "localStorage"` take turns (src/web/store.rs calls these;
// wasm-bindgen ships this file beside its glue, so every entry, `raw` ones
// included, has it). Written in JS, not through wasm-bindgen's bindings:
// the same steps in Rust were several KB more of the wasm's gzip
// (docs/size.md, sessions 36 and 37).
//
// A record is JSON text the Rust side writes and reads; here it is kept
// under its key in `store`: the name of a Web Storage ('sessionStorage' or
// 'localStorage'), or the app's `{ load, save, clear }` (each may return a
// promise).
//
// Tabs sharing localStorage take a Web Lock per record, and each record
// written to localStorage is written to IndexedDB too. Why the copy:
// Chromium hands one tab's localStorage writes to the other tabs
// asynchronously, on another channel than the one that grants Web Locks.
// A tab that takes the lock the moment another released it can still read
// the record as it was before the other's refresh, and present the refresh
// token the other just rotated; an authorization server that detects the
// reuse revokes the whole grant. IndexedDB has no such lag: a write
// committed before the lock was released is seen by every read after it,
// in every tab. So the next holder of the lock waits, for a bounded time,
// until its localStorage shows the copy ('' for a cleared record).

const messageOf = (error) => error?.message ?? String(error);

// `store[method](...args)`, awaited; an Error that names the method if it
// throws or rejects.
async function call(store, method, ...args) {
  try {
    return await store[method](...args);
  } catch (error) {
    throw new Error(`auth.store.${method} failed: ${messageOf(error)}`);
  }
}

// `work(storage)` on the Web Storage named `name`; an Error that says what
// `failed` otherwise.
function withStorage(name, failed, work) {
  try {
    return work(globalThis[name]);
  } catch (error) {
    throw new Error(`${name} ${failed}: ${messageOf(error)}`);
  }
}

// The record under `key`: its text, or undefined when there is none.
export async function loadRecord(store, key) {
  if (typeof store === 'string') return withStorage(store, 'could not be read', (s) => s.getItem(key) ?? undefined);
  const text = await call(store, 'load', key);
  if (text !== undefined && text !== null && typeof text !== 'string') {
    throw new Error('auth.store.load must return a string, null or undefined');
  }
  return text ?? undefined;
}

// Keeps `text` as the record under `key` ('' with `clear`: removes it).
export async function saveRecord(store, key, text, clear) {
  if (typeof store !== 'string') {
    await (clear ? call(store, 'clear', key) : call(store, 'save', key, text));
    return;
  }
  if (clear) withStorage(store, 'could not be cleared', (s) => s.removeItem(key));
  else withStorage(store, 'could not be written (full, or not allowed)', (s) => s.setItem(key, text));
  if (store === 'localStorage') await recordWritten(key, clear ? '' : text);
}

// The longest one IndexedDB read or write may take.
const ANSWER_MS = 3000;
// How long a tab waits for its localStorage to show the copy: the lag is
// milliseconds; a record that still differs after this was changed by hand
// (or by an older version of this library) and is taken as it is.
const CATCH_UP_MS = 2000;
const POLL_MS = 10;

let opened;

const settled = (target, success) =>
  new Promise((resolve, reject) => {
    target[success] = () => resolve(target.result);
    target.onerror = target.onabort = () => reject(target.error ?? new Error('IndexedDB aborted'));
  });

// `work()`, or a rejection after ANSWER_MS.
async function answered(work) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`IndexedDB gave no answer within ${ANSWER_MS / 1000} s`)), ANSWER_MS);
  });
  try {
    return await Promise.race([work(), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function records(mode) {
  if (!opened) {
    const request = indexedDB.open('mcp-edge', 1);
    request.onupgradeneeded = () => request.result.createObjectStore('records');
    opened = settled(request, 'onsuccess').then(
      (database) => {
        // Another tab upgrading, or the browser closing it: open again next time.
        database.onversionchange = () => {
          opened = undefined;
          database.close();
        };
        database.onclose = () => (opened = undefined);
        return database;
      },
      (error) => {
        opened = undefined;
        throw error;
      },
    );
  }
  const transaction = (await opened).transaction('records', mode);
  return [transaction, transaction.objectStore('records')];
}

// Records `text` as `key`'s latest record and resolves once the write is
// committed. Never rejects: without the copy, other tabs may only read the
// record late, as they would without IndexedDB (Deno, some private modes).
async function recordWritten(key, text) {
  if (typeof indexedDB === 'undefined') return;
  try {
    await answered(async () => {
      const [transaction, store] = await records('readwrite');
      store.put(text, key);
      await settled(transaction, 'oncomplete');
    });
  } catch {
    // As above: the lock still holds.
  }
}

// Waits (at most CATCH_UP_MS) until this tab's localStorage shows the
// copy of `key`.
async function catchUp(key) {
  if (typeof indexedDB === 'undefined') return;
  const expected = await answered(async () => settled((await records('readonly'))[1].get(key), 'onsuccess'));
  if (typeof expected !== 'string') return;
  const deadline = Date.now() + CATCH_UP_MS;
  while ((localStorage.getItem(key) ?? '') !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

// The exclusive Web Lock `key`, once this tab's localStorage has caught up
// with the copy: resolves with the function that lets it go, or with
// undefined where there is no Web Locks API (old browsers, insecure
// contexts). Rejects if the lock cannot be had. Once `signal` is aborted
// (the caller stopped waiting), the lock is not taken, or let go at once.
export function lockRecord(key, signal) {
  const locks = globalThis.navigator?.locks;
  if (typeof locks?.request !== 'function') return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    locks
      .request(key, { signal }, async () => {
        try {
          await catchUp(key);
        } catch {
          // No copy to wait for: localStorage is all there is.
        }
        if (signal?.aborted) return reject(signal.reason);
        // Held until `release` is called.
        return new Promise((release) => resolve(release));
      })
      .catch(reject);
  });
}
