// What this host is, for src/runtime.rs's `host` (wasm-bindgen ships this
// file beside its glue): a number of bits, so that one call answers every
// question the wasm asks of its host, and no string crosses.
//
// 1: a browser by its userAgent (every browser names itself "Mozilla/5.0
//    ..."; Node, Deno, Bun and workerd do not);
// 2: Node 21 or later ("Node.js/...");
// 4: workerd ("Cloudflare-Workers");
// 8: not Node, Deno nor Bun by their globals: a page, a worker, workerd.
export function hostKind() {
  const agent = globalThis.navigator?.userAgent;
  const named = typeof agent === 'string' ? agent : '';
  const script =
    typeof globalThis.process?.versions?.node !== 'string' &&
    globalThis.Deno === undefined &&
    globalThis.Bun === undefined;
  return (
    (named.startsWith('Mozilla/') ? 1 : 0) |
    (named.startsWith('Node.js/') ? 2 : 0) |
    (named === 'Cloudflare-Workers' ? 4 : 0) |
    (script ? 8 : 0)
  );
}
