//! talc as the global allocator of a wasm32 module (mcp-edge's `talc`
//! feature). Nothing natively.
//!
//! A crate of its own: the allocator's generic code is compiled in the
//! crate that instantiates it, and this one is built at `opt-level = 3`
//! (the workspace's release profile) while mcp-edge is built for size.
//!
//! In front of talc, freed blocks of up to 256 bytes are kept for the next
//! allocation of their size (`cache.rs`).
#![no_std]

mod cache;

/// talc, growing the module's memory as it needs (single-threaded wasm),
/// with small freed blocks kept.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: cache::Cached<talc::wasm::WasmDynamicTalc> =
    cache::Cached::new(talc::wasm::new_wasm_dynamic_allocator());
