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

// The Rust side's one timer (src/runtime/timers.rs), set for the earliest
// deadline of its queue. While no sleep waits, a browser keeps it set
// (nothing stays alive for it), Node and Bun keep it `unref()`ed, other hosts
// (Deno, workerd) have it cleared. The timer's handle stays here: the wasm
// holds no host object for it.
let timer;
// 0: kept set; 1: `unref()`ed; 2: cleared. Found out when first set.
let idle;

// Sets the timer to call `fire` after `millis`, in place of any set.
export function setTimer(fire, millis) {
  clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    fire();
  }, millis);
  idle ??= hostKind() & 1 ? 0 : typeof timer?.unref === 'function' ? 1 : 2;
}

// A sleep waits on the timer that is set (`wanted`), or none does any more:
// true when that cleared the timer.
export function timerWanted(wanted) {
  if (idle === 1) {
    if (wanted) timer?.ref();
    else timer?.unref();
    return false;
  }
  if (wanted || idle === 0) return false;
  clearTimeout(timer);
  timer = undefined;
  return true;
}
