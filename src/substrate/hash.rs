//! A fast deterministic hasher for memo keys made of integers and f64 bit patterns (the multiply–rotate hash
//! of the Rust compiler's `FxHasher`). The std default, SipHash-1-3, is built to resist hash flooding; the memo
//! tables of the simulators hash keys they computed themselves, where SipHash only costs time (most of all in
//! wasm). No result depends on a map's iteration order, so the hasher changes no number.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Multiplier of the hash (from rustc-hash 2).
const K: u64 = 0xf135_7aea_2e62_a9c5;

/// Multiply–rotate hasher for integer keys (see the module docs). Not for keys an adversary chooses.
#[derive(Clone, Copy, Debug, Default)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, x: u64) {
        self.hash = self.hash.wrapping_add(x).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // the table takes its bucket index from the low bits: bring the well-mixed high bits down
        self.hash.rotate_left(26)
    }
}

/// `HashMap` with [`FxHasher`] (for memo tables keyed by integers or f64 bit patterns).
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_round_trip() {
        let mut m: FxHashMap<[u64; 3], usize> = FxHashMap::default();
        for i in 0..1000u64 {
            m.insert([i, i.wrapping_mul(7), 1.5f64.to_bits()], i as usize);
        }
        for i in 0..1000u64 {
            assert_eq!(m[&[i, i.wrapping_mul(7), 1.5f64.to_bits()]], i as usize);
        }
    }
}
