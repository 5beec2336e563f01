//! What the packer does to a wasm module around wasm-bindgen and binaryen,
//! each for the compressed size: the table entries nothing reaches
//! ([`table`]), the order of its functions ([`order`]) and the names of its
//! imports ([`imports`]) and exports ([`exports`]). Each reads the module
//! with the few pieces of the binary format below (xtask keeps no
//! dependencies).

pub mod exports;
pub mod imports;
pub mod order;
pub mod table;

/// A cursor over a module's bytes.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn byte(&mut self) -> Result<u8, String> {
        let byte = *self.bytes.get(self.at).ok_or("the wasm ends early")?;
        self.at += 1;
        Ok(byte)
    }

    pub fn leb(&mut self) -> Result<u64, String> {
        let (mut value, mut shift) = (0u64, 0);
        loop {
            let byte = self.byte()?;
            if shift > 63 {
                return Err("a LEB128 number is too long".into());
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
            shift += 7;
        }
    }

    /// A signed LEB128 number (`i32.const`'s operand, an offset).
    pub fn sleb(&mut self) -> Result<i64, String> {
        let (mut value, mut shift) = (0i64, 0);
        loop {
            let byte = self.byte()?;
            if shift > 63 {
                return Err("a LEB128 number is too long".into());
            }
            value |= i64::from(byte & 0x7f) << shift;
            shift += 7;
            if byte < 0x80 {
                if shift < 64 && byte & 0x40 != 0 {
                    value |= -1 << shift;
                }
                return Ok(value);
            }
        }
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len()).ok_or("the wasm ends early")?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    /// Whether every byte has been read.
    pub fn at_end(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// A name: its length, then its UTF-8 bytes.
    pub fn name(&mut self) -> Result<&'a str, String> {
        let length = self.leb()? as usize;
        std::str::from_utf8(self.take(length)?).map_err(|_| "a name is not UTF-8".to_string())
    }

    /// Limits: a flags byte, the minimum, and the maximum if flag 1 says so.
    fn limits(&mut self) -> Result<(), String> {
        let flags = self.byte()?;
        self.leb()?;
        if flags & 1 != 0 {
            self.leb()?;
        }
        Ok(())
    }
}

/// Where a section is in its module.
pub struct Section {
    pub id: u8,
    /// Its first byte (the id).
    pub start: usize,
    /// The first byte of its payload.
    payload: usize,
    /// One past its last byte.
    pub end: usize,
}

impl Section {
    /// A reader over the section's payload.
    pub fn payload<'a>(&self, module: &'a [u8]) -> Reader<'a> {
        Reader { bytes: &module[..self.end], at: self.payload }
    }

    /// Whether this is the custom section `name`.
    pub fn is_custom(&self, module: &[u8], name: &str) -> bool {
        self.id == 0 && self.payload(module).name().is_ok_and(|found| found == name)
    }
}

/// The sections of `module`, in order.
pub fn sections(module: &[u8]) -> Result<Vec<Section>, String> {
    if module.get(..4) != Some(b"\0asm") || module.len() < 8 {
        return Err("not a wasm module".into());
    }
    let mut sections = Vec::new();
    let mut at = Reader { bytes: module, at: 8 };
    while at.at < module.len() {
        let start = at.at;
        let id = at.byte()?;
        let size = at.leb()? as usize;
        let end = at.at.checked_add(size).filter(|&end| end <= module.len()).ok_or("a section runs past the end")?;
        sections.push(Section { id, start, payload: at.at, end });
        at.at = end;
    }
    Ok(sections)
}

/// One import: where from, its name, and what it is (the kind byte and the
/// rest of its description, as in the module).
pub struct Import<'a> {
    pub module: &'a str,
    pub name: &'a str,
    pub description: &'a [u8],
}

impl Import<'_> {
    pub fn is_function(&self) -> bool {
        self.description.first() == Some(&0)
    }
}

/// The imports of an import section's payload.
pub fn imports<'a>(reader: &mut Reader<'a>) -> Result<Vec<Import<'a>>, String> {
    let mut imports = Vec::new();
    for _ in 0..reader.leb()? {
        let module = reader.name()?;
        let name = reader.name()?;
        let start = reader.at;
        match reader.byte()? {
            0 => {
                reader.leb()?;
            }
            1 => {
                reader.byte()?;
                reader.limits()?;
            }
            2 => reader.limits()?,
            3 => {
                reader.byte()?;
                reader.byte()?;
            }
            4 => {
                reader.byte()?;
                reader.leb()?;
            }
            kind => return Err(format!("an import of unknown kind {kind}")),
        }
        imports.push(Import { module, name, description: &reader.bytes[start..reader.at] });
    }
    Ok(imports)
}

/// `value` as unsigned LEB128, appended to `out`.
pub fn leb(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A section appended to `out`: its id, its payload's length, the payload.
pub fn section(out: &mut Vec<u8>, id: u8, payload: &[u8]) {
    out.push(id);
    leb(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// A section on its own (for the tests' modules).
#[cfg(test)]
pub fn alone(id: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    section(&mut out, id, payload);
    out
}

/// `bytes` as a wasm name (length first).
pub fn name(out: &mut Vec<u8>, bytes: &str) {
    leb(out, bytes.len() as u64);
    out.extend_from_slice(bytes.as_bytes());
}
