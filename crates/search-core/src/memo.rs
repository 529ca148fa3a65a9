//! A bounded memo (transposition) table.
//!
//! The table never grows: its size is fixed in bytes when it is made, so a solver can promise a
//! memory limit (TwoFour's olympiad limit is 1 MB for everything). When two positions want the
//! same place, a two-slot bucket decides: the first slot keeps the entry that cost the most work
//! to compute, the second always takes the newest entry. Costly results survive, and recent ones
//! (which the search is likely to meet again soon) still get a place.
//!
//! Clearing is O(1): every slot carries the table's generation when it was written, and
//! [`MemoTable::clear`] starts a new generation, so a solver can start each problem afresh
//! without rewriting megabytes.

use std::hash::{Hash, Hasher};

/// How a stored score relates to the true value of its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bound {
    /// The score is the exact value.
    #[default]
    Exact,
    /// The true value is at least the score (the search failed high).
    Lower,
    /// The true value is at most the score (the search failed low).
    Upper,
}

#[derive(Debug, Clone, Default)]
struct Slot<K, V> {
    key: K,
    value: V,
    /// 0 marks an empty slot; otherwise 1 + the caller's work estimate, saturated.
    work: u8,
    /// The table generation that wrote it; slots of older generations count as empty.
    generation: u8,
}

/// A fixed-size hash table from position keys to values, with a replacement policy.
///
/// ```
/// use search_core::MemoTable;
/// let mut memo: MemoTable<u64, i32> = MemoTable::with_memory(1 << 16);
/// memo.store(42, 7, 3);
/// assert_eq!(memo.get(&42), Some(&7));
/// assert!(memo.memory_bytes() <= 1 << 16);
/// ```
#[derive(Debug, Clone)]
pub struct MemoTable<K, V> {
    slots: Vec<Slot<K, V>>,
    buckets: usize,
    occupied: usize,
    generation: u8,
}

impl<K: Copy + Eq + Hash + Default, V: Clone + Default> MemoTable<K, V> {
    /// A table that uses at most `bytes` bytes for its slots (at least one bucket of two).
    ///
    /// Like any allocation, more memory than the machine can give ends the process; where
    /// the size comes from a user, [`MemoTable::try_with_memory`] reports that instead.
    #[must_use]
    pub fn with_memory(bytes: usize) -> Self {
        let buckets = Self::buckets_for(bytes);
        MemoTable {
            slots: vec![Slot::default(); 2 * buckets],
            buckets,
            occupied: 0,
            generation: 1,
        }
    }

    /// As [`MemoTable::with_memory`], or the allocation's error if the memory cannot be had.
    ///
    /// ```
    /// use search_core::MemoTable;
    /// assert!(MemoTable::<u64, i32>::try_with_memory(usize::MAX).is_err());
    /// assert!(MemoTable::<u64, i32>::try_with_memory(1 << 16).is_ok());
    /// ```
    ///
    /// # Errors
    /// When the slots cannot be allocated.
    pub fn try_with_memory(bytes: usize) -> Result<Self, std::collections::TryReserveError> {
        let buckets = Self::buckets_for(bytes);
        let mut slots = Vec::new();
        slots.try_reserve_exact(2 * buckets)?;
        slots.resize(2 * buckets, Slot::default());
        Ok(MemoTable {
            slots,
            buckets,
            occupied: 0,
            generation: 1,
        })
    }

    /// Buckets of two slots in `bytes` (at least one; never more than an allocation can
    /// address, so that a huge request fails as an allocation, not as an overflow).
    fn buckets_for(bytes: usize) -> usize {
        let slot = std::mem::size_of::<Slot<K, V>>().max(1);
        (bytes.min(isize::MAX as usize) / (2 * slot)).max(1)
    }

    /// Bytes held by the slots (the table's whole heap footprint).
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot<K, V>>()
    }

    /// Number of entries it can hold.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Number of entries it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.occupied
    }

    /// Whether it holds nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.occupied == 0
    }

    /// Forgets every entry, keeping the memory. Takes constant time, except once every 255
    /// calls, when the generation counter wraps and the slots are rewritten.
    pub fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
        self.occupied = 0;
    }

    fn live(&self, s: &Slot<K, V>) -> bool {
        s.work != 0 && s.generation == self.generation
    }

    fn bucket(&self, key: &K) -> usize {
        let mut h = FxHasher::default();
        key.hash(&mut h);
        // Multiply-shift range reduction: uses the high bits, no power-of-two size needed.
        ((u128::from(h.finish()) * self.buckets as u128) >> 64) as usize * 2
    }

    /// The value stored for `key`, if it is still there.
    #[must_use]
    pub fn get(&self, key: &K) -> Option<&V> {
        let b = self.bucket(key);
        self.slots[b..b + 2]
            .iter()
            .find(|s| self.live(s) && s.key == *key)
            .map(|s| &s.value)
    }

    /// Stores `value` for `key`. `work` estimates what it cost to compute (a depth, or the
    /// log of a node count): the replacement policy keeps costly entries longer. A key
    /// already stored gets the new value and the new work in place.
    pub fn store(&mut self, key: K, value: V, work: u8) {
        let work = work.saturating_add(1);
        let b = self.bucket(&key);
        let generation = self.generation;
        let live = |s: &Slot<K, V>| s.work != 0 && s.generation == generation;
        let pair = &mut self.slots[b..b + 2];
        if let Some(s) = pair.iter_mut().find(|s| live(s) && s.key == key) {
            // The new value replaces the old, and its cost the old cost: a deep result
            // overwritten by a shallow one must not keep the deep one's claim on the slot.
            s.value = value;
            s.work = work;
            return;
        }
        let (first, second) = pair.split_at_mut(1);
        let (first, second) = (&mut first[0], &mut second[0]);
        let new = Slot {
            key,
            value,
            work,
            generation,
        };
        if !live(first) {
            *first = new;
            self.occupied += 1;
        } else if work >= first.work {
            // The old keeper moves down to the always-replace slot.
            if !live(second) {
                self.occupied += 1;
            }
            *second = std::mem::replace(first, new);
        } else {
            if !live(second) {
                self.occupied += 1;
            }
            *second = new;
        }
    }
}

/// A small, fast, non-cryptographic hasher (the multiply-rotate scheme of rustc's FxHash).
/// Keys are positions chosen by the game, not by an adversary, so speed wins.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.hash = (self.hash.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn finish(&self) -> u64 {
        // A final avalanche so that the high bits used for bucketing depend on every input bit.
        let mut x = self.hash;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Under any run of stores, reads and clears: the count of entries is the number of
        /// live slots and never above the capacity; a key just stored reads back its value;
        /// any key read back gives the value last stored for it since the last clear.
        #[test]
        fn the_table_counts_and_returns_what_it_holds(
            ops in proptest::collection::vec((0u8..3, 0u64..48, proptest::prelude::any::<u8>()), 1..400),
            bytes in 16usize..512,
        ) {
            use proptest::prop_assert;
            use proptest::prop_assert_eq;
            let mut t = MemoTable::<u64, u64>::with_memory(bytes);
            let mut last = std::collections::HashMap::new();
            for (n, &(op, key, work)) in ops.iter().enumerate() {
                match op {
                    0 => {
                        t.store(key, n as u64, work);
                        last.insert(key, n as u64);
                        prop_assert_eq!(t.get(&key), Some(&(n as u64)));
                    }
                    1 => {
                        if let Some(v) = t.get(&key) {
                            prop_assert_eq!(Some(v), last.get(&key));
                        }
                    }
                    _ if work % 8 == 0 => {
                        t.clear();
                        last.clear();
                        prop_assert!(t.is_empty());
                    }
                    _ => {}
                }
                let live = t.slots.iter().filter(|s| t.live(s)).count();
                prop_assert_eq!(t.len(), live);
                prop_assert!(t.len() <= t.capacity());
            }
        }
    }

    /// In a bucket, a newcomer at least as costly as the first slot's entry takes that slot
    /// and moves the entry to the second (always replaced) slot; a cheaper one replaces
    /// the second slot's entry.
    #[test]
    fn the_costlier_entry_stays_and_the_newer_wins_a_tie() {
        let mut t: MemoTable<u64, u32> = MemoTable::with_memory(1);
        assert_eq!(t.capacity(), 2);
        t.store(1, 10, 5);
        t.store(2, 20, 5);
        t.store(3, 30, 5);
        assert_eq!(
            (t.get(&1), t.get(&2), t.get(&3)),
            (None, Some(&20), Some(&30))
        );
        t.store(4, 40, 1);
        assert_eq!(
            (t.get(&2), t.get(&3), t.get(&4)),
            (None, Some(&30), Some(&40))
        );
        t.store(5, 50, 9);
        assert_eq!(
            (t.get(&3), t.get(&4), t.get(&5)),
            (Some(&30), None, Some(&50))
        );
    }

    #[test]
    fn respects_memory_bound() {
        for bytes in [0, 1, 100, 1000, 1 << 20] {
            let t: MemoTable<u64, (u8, u8)> = MemoTable::with_memory(bytes);
            assert!(t.capacity() >= 2);
            assert!(bytes < 64 || t.memory_bytes() <= bytes);
        }
    }

    #[test]
    fn fallible_and_infallible_tables_match_and_use_their_memory() {
        for bytes in [0, 1, 100, 1000, 1 << 20] {
            let t: MemoTable<u64, (u8, u8)> = MemoTable::with_memory(bytes);
            let u = MemoTable::<u64, (u8, u8)>::try_with_memory(bytes).unwrap();
            assert_eq!(t.capacity(), u.capacity());
            assert_eq!(t.memory_bytes(), u.memory_bytes());
            let slot = std::mem::size_of::<Slot<u64, (u8, u8)>>();
            assert_eq!(t.memory_bytes(), t.capacity() * slot);
            // All but less than one bucket of the budget is used.
            assert!(bytes < 2 * slot || t.memory_bytes() + 2 * slot > bytes);
        }
    }

    #[test]
    fn clearing_starts_a_generation_without_rewriting_the_slots() {
        let mut t: MemoTable<u64, u32> = MemoTable::with_memory(1 << 10);
        assert!(t.is_empty());
        t.store(5, 50, 1);
        assert!(!t.is_empty());
        t.clear();
        assert_eq!(t.generation, 2);
        assert!(
            t.slots
                .iter()
                .any(|s| s.key == 5 && s.value == 50 && s.generation == 1)
        );
        assert!(t.is_empty() && t.get(&5).is_none());
    }

    #[test]
    fn the_hash_is_fxhash_with_a_final_mix() {
        // Values from an independent implementation of the same scheme (FxHash's
        // rotate-xor-multiply steps, then the first half of MurmurHash3's 64-bit finaliser).
        // Pinned because which entries a full table keeps depends on them, and so do the
        // node counts of searches that use it.
        let h = |f: &dyn Fn(&mut FxHasher)| {
            let mut x = FxHasher::default();
            f(&mut x);
            x.finish()
        };
        assert_eq!(h(&|x| x.write_u64(1)), 0xa3c9_d2fc_ddad_2108);
        let one_two = h(&|x| {
            x.write_u64(1);
            x.write_u64(2);
        });
        assert_eq!(one_two, 0xfec6_b1a1_3d70_091b);
        assert_eq!(h(&|x| x.write(b"position!")), 0x8d0b_7420_1231_f3ba);
        // Narrow integers are widened to 64 bits; bytes go in little-endian chunks of 8, the
        // last padded with zeros.
        let narrow: [&dyn Fn(&mut FxHasher); 3] = [&|x| x.write_u8(1), &|x| x.write_u32(1), &|x| {
            x.write_usize(1)
        }];
        for f in narrow {
            assert_eq!(h(f), 0xa3c9_d2fc_ddad_2108);
        }
        assert_eq!(h(&|x| x.write(&[1, 0, 0, 0, 0, 0, 0, 0, 2])), one_two);
        assert_eq!(h(&|_| ()), 0);
    }

    #[test]
    fn keeps_costly_entry_and_newest() {
        // One bucket: every key collides.
        let mut t: MemoTable<u64, u32> = MemoTable::with_memory(1);
        assert_eq!(t.capacity(), 2);
        t.store(1, 10, 9);
        assert_eq!(t.len(), 1);
        t.store(2, 20, 1);
        assert_eq!(t.len(), 2);
        t.store(3, 30, 1);
        assert_eq!(t.len(), 2);
        assert_eq!(t.get(&1), Some(&10), "costly entry survives");
        assert_eq!(t.get(&2), None, "older cheap entry replaced");
        assert_eq!(t.get(&3), Some(&30));
        t.store(4, 40, 12);
        assert_eq!(t.get(&4), Some(&40));
        assert_eq!(
            t.get(&1),
            Some(&10),
            "displaced keeper moves to the second slot"
        );
        assert_eq!(t.len(), 2);
        t.store(4, 41, 0);
        assert_eq!(t.get(&4), Some(&41), "same key updates in place");
        // ... and with it the work: a cheap value no longer holds the keeper's slot.
        t.store(6, 60, 5);
        t.store(7, 70, 3);
        assert_eq!(
            (t.get(&6), t.get(&7), t.get(&4)),
            (Some(&60), Some(&70), None),
            "the costlier new entry took the first slot"
        );
        t.clear();
        assert!(t.is_empty() && t.get(&4).is_none());
    }

    #[test]
    fn clear_survives_generation_wrap() {
        let mut t: MemoTable<u64, u32> = MemoTable::with_memory(1 << 10);
        for round in 0..600u32 {
            t.store(7, round, 1);
            t.store(u64::from(round) + 100, round, 1);
            assert_eq!(t.get(&7), Some(&round));
            if round > 0 {
                assert_eq!(t.get(&(u64::from(round) + 99)), None, "round {round}");
            }
            assert_eq!(t.len(), 2);
            t.clear();
            assert_eq!(t.get(&7), None);
        }
    }

    /// An entry of the first generation stays dead when the generation counter wraps back to
    /// it: the wrap rewrites the slots, or 255 clears later the old entry would read back as
    /// if it had just been stored.
    #[test]
    fn an_entry_from_before_the_wrap_does_not_come_back() {
        let mut t: MemoTable<u64, u32> = MemoTable::with_memory(1 << 10);
        t.store(5, 50, 1);
        for _ in 0..u8::MAX {
            t.clear();
            assert_eq!(t.get(&5), None);
        }
        // Back at the first generation, the one the entry was stored in.
        assert_eq!(t.generation, 1);
        assert_eq!(t.get(&5), None);
        assert!(t.is_empty());
        t.store(6, 60, 1);
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn holds_many_distinct_keys() {
        let mut t: MemoTable<u64, u64> = MemoTable::with_memory(1 << 20);
        let n = t.capacity() as u64 / 4;
        for k in 0..n {
            t.store(k, k * 3, 0);
        }
        let found = (0..n).filter(|k| t.get(k) == Some(&(k * 3))).count() as u64;
        // A quarter-full two-way table keeps nearly everything (Poisson overflow ~1.5%).
        assert!(found > n * 95 / 100, "{found} of {n}");
    }
}
