//! `Debug` of the types whose impl is written by hand (to leave secrets out
//! or to show what a field means), through [`debug_struct`].
//!
//! Built with `--cfg mcp_edge_shallow_debug`, as the npm package's nightly
//! build is (beside `-Zfmt-debug=shallow`, which does the same to derived
//! impls), [`debug_struct`] prints the type's name and nothing else. No
//! field's `Debug` is then reachable from the module, so it drops the
//! impls, `core`'s struct builder and its padding adapter: -1.5 KB gzip of
//! the lite wasm (docs/size.md, session 32). A JS caller never sees a Rust
//! value's `Debug`; every other build prints the fields.

use std::fmt;

/// `f.debug_struct(name)`, or its shallow stand-in (see the module).
#[cfg(not(mcp_edge_shallow_debug))]
pub(crate) fn debug_struct<'a, 'b: 'a>(f: &'a mut fmt::Formatter<'b>, name: &str) -> fmt::DebugStruct<'a, 'b> {
    f.debug_struct(name)
}

/// `f.debug_struct(name)`, or its shallow stand-in (see the module).
#[cfg(mcp_edge_shallow_debug)]
pub(crate) fn debug_struct<'a, 'b: 'a>(f: &'a mut fmt::Formatter<'b>, name: &'a str) -> Shallow<'a, 'b> {
    Shallow { f, name }
}

/// Writes only the name; takes fields the way `fmt::DebugStruct` does.
#[cfg(mcp_edge_shallow_debug)]
pub(crate) struct Shallow<'a, 'b: 'a> {
    f: &'a mut fmt::Formatter<'b>,
    name: &'a str,
}

#[cfg(mcp_edge_shallow_debug)]
impl Shallow<'_, '_> {
    pub(crate) fn field(&mut self, _name: &str, _value: &dyn fmt::Debug) -> &mut Self {
        self
    }

    pub(crate) fn finish(&mut self) -> fmt::Result {
        self.f.write_str(self.name)
    }

    pub(crate) fn finish_non_exhaustive(&mut self) -> fmt::Result {
        self.f.write_str(self.name)
    }
}
