// The IndexedDB ledger of `auth.store: "localStorage"` (index.js and lite.js
// install it; the wasm finds it under the symbol below).
//
// Why: Chromium hands one tab's localStorage writes to the other tabs
// asynchronously, so a tab that takes the refresh lock (a Web Lock) right
// after another tab refreshed can still read the old tokens and present the
// rotated refresh token again, and an authorization server that detects the
// reuse revokes the grant. IndexedDB has no such lag: a write committed
// before the lock was released is seen by every read after it. So each
// record written to localStorage is written here too, and the next holder
// of the lock waits until its localStorage shows it (src/web/ledger.rs).
// Written in JS, not through wasm-bindgen: 2.8 KB of gzip there, a few
// hundred bytes here.
//
// `read(key)` resolves to the text last written for `key` (undefined if
// none); `write(key, text)` resolves once the write is committed.
const INSTALLED = Symbol.for('mcp-edge.ledger');

export function installLedger() {
  if (globalThis[INSTALLED] || typeof indexedDB === 'undefined') return;
  let opened;
  const settled = (target, success) =>
    new Promise((resolve, reject) => {
      target[success] = () => resolve(target.result);
      target.onerror = target.onabort = () => reject(target.error ?? new Error('IndexedDB aborted'));
    });
  const records = async (mode) => {
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
  };
  globalThis[INSTALLED] = {
    async read(key) {
      const [, store] = await records('readonly');
      return settled(store.get(key), 'onsuccess');
    },
    async write(key, text) {
      const [transaction, store] = await records('readwrite');
      store.put(text, key);
      await settled(transaction, 'oncomplete');
    },
  };
}
