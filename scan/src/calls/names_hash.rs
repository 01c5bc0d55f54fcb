//! The hasher of the call scan's maps, whose keys are a file's short names and paths. std's
//! SipHash is keyed against crafted collisions, which a one-shot read of the user's own
//! sources need not resist; at the scan's low optimization level it cost a tenth of the scan.

use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-rotate hash over 8-byte words.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct NameHasher(u64);

impl NameHasher {
    fn add(&mut self, word: u64) {
        // An odd constant with well-spread bits (the golden ratio's).
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(word.try_into().unwrap_or_default()));
        }
        let mut last = [0u8; 8];
        let rest = words.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by names.
pub(super) type Map<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<NameHasher>>;

/// A set of names.
pub(super) type Set<K> = std::collections::HashSet<K, BuildHasherDefault<NameHasher>>;
