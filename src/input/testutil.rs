//! Test helpers shared by the readers' tests: real data paths and garbled variants for no-panic tests.

use crate::input::InputFile;
use std::path::{Path, PathBuf};

/// `../shared/data/<rel>` next to the crate.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel)
}

/// The file as an [`InputFile`] named by its path relative to the data folder. A missing file fails the
/// test with its path: these tests check real data and never pass by skipping it.
pub fn load(rel: &str) -> InputFile {
    let path = data(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "test data {} cannot be read ({e}); ../shared/data must sit beside the checkout",
            path.display()
        )
    });
    InputFile {
        name: rel.to_string(),
        bytes,
    }
}

/// Deterministic garbled variants of `bytes`: truncations (also inside a multi-byte character), the
/// first and last lines only, byte flips, injected `NaN`/`-1`/`1e400`/huge integers/non-UTF-8 bytes,
/// swapped delimiters and a duplicated block. At most ~256 KiB of the input is used.
pub fn garbled(bytes: &[u8]) -> Vec<Vec<u8>> {
    let b = &bytes[..bytes.len().min(256 << 10)];
    let mut out: Vec<Vec<u8>> = Vec::new();
    for frac in [0.0, 0.001, 0.01, 0.1, 0.37, 0.5, 0.99] {
        let n = (b.len() as f64 * frac) as usize;
        out.push(b[..n].to_vec());
        out.push(b[n..].to_vec());
    }
    if let Some(p) = b.iter().position(|c| *c == b'\n') {
        out.push(b[..p].to_vec());
        out.push(b[..p + 1].to_vec());
    }
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = |m: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m.max(1) as u64) as usize
    };
    for flips in [1usize, 5, 50, 500] {
        let mut v = b.to_vec();
        for _ in 0..flips {
            let i = rnd(v.len());
            if let Some(c) = v.get_mut(i) {
                *c = [
                    b',', b'\n', b'|', b';', b'-', b'.', b'e', b'9', 0xff, b'\t', b'*', b' ',
                ][rnd(12)];
            }
        }
        out.push(v);
    }
    for inj in [
        &b"NaN"[..],
        b"-1",
        b"1e400",
        b"99999999999999999999999",
        b"18446744073709551615",
        b"inf",
        b"\xc3",
        b"\"",
        b",,,,",
        b"*4000000000",
    ] {
        for _ in 0..3 {
            let mut v = b.to_vec();
            let i = rnd(v.len() + 1);
            v.splice(i..i, inj.iter().copied());
            out.push(v);
        }
    }
    out.push(
        b.iter()
            .map(|c| if *c == b',' { b';' } else { *c })
            .collect(),
    );
    let mut dup = b.to_vec();
    dup.extend_from_slice(&b[..b.len() / 3]);
    out.push(dup);
    out
}

/// Replaces the bytes of file `k` of `files` by each garbled variant and calls `read` (results ignored:
/// the test is that nothing panics).
pub fn no_panic<T, E>(files: &[InputFile], read: impl Fn(&[InputFile]) -> Result<T, E>) {
    for k in 0..files.len() {
        for v in garbled(&files[k].bytes) {
            let mut fs = files.to_vec();
            fs[k].bytes = v;
            let _ = read(&fs);
        }
    }
}
