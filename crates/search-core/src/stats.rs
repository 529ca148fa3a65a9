//! Counters that make every speedup measurable.

use std::fmt;
use std::ops::AddAssign;

/// What a search did. All searches in this crate fill these counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Positions visited (each call of the recursive search counts once).
    pub nodes: u64,
    /// Finished positions reached.
    pub terminals: u64,
    /// Memo look-ups.
    pub memo_probes: u64,
    /// Memo look-ups that found the position.
    pub memo_hits: u64,
    /// Memo hits whose stored value answered the position without searching it.
    pub memo_cutoffs: u64,
    /// Beta cutoffs: moves left unsearched because one already refuted the opponent's choice.
    pub cutoffs: u64,
    /// Moves skipped because an equivalent move (same [`move_class`]) was already searched.
    ///
    /// [`move_class`]: crate::Game::move_class
    pub merged_moves: u64,
    /// Searches repeated with a wider window or at full depth (principal variation search,
    /// aspiration windows, late move reductions).
    pub researches: u64,
}

impl Stats {
    /// Fraction of memo probes that hit, in `0.0..=1.0` (0 when there were none).
    #[must_use]
    pub fn hit_rate(&self) -> f64 {
        if self.memo_probes == 0 {
            0.0
        } else {
            self.memo_hits as f64 / self.memo_probes as f64
        }
    }
}

/// Adds counts field by field, stopping at `u64::MAX` rather than overflowing.
impl AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.nodes = self.nodes.saturating_add(o.nodes);
        self.terminals = self.terminals.saturating_add(o.terminals);
        self.memo_probes = self.memo_probes.saturating_add(o.memo_probes);
        self.memo_hits = self.memo_hits.saturating_add(o.memo_hits);
        self.memo_cutoffs = self.memo_cutoffs.saturating_add(o.memo_cutoffs);
        self.cutoffs = self.cutoffs.saturating_add(o.cutoffs);
        self.merged_moves = self.merged_moves.saturating_add(o.merged_moves);
        self.researches = self.researches.saturating_add(o.researches);
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "nodes {} terminals {} memo {}/{} hits ({:.1}%) memo-cutoffs {} cutoffs {} merged {} re-searches {}",
            self.nodes,
            self.terminals,
            self.memo_hits,
            self.memo_probes,
            100.0 * self.hit_rate(),
            self.memo_cutoffs,
            self.cutoffs,
            self.merged_moves,
            self.researches
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_counts_saturates() {
        let mut s = Stats {
            nodes: u64::MAX,
            cutoffs: 3,
            ..Stats::default()
        };
        s += Stats {
            nodes: 1,
            cutoffs: 4,
            ..Stats::default()
        };
        assert_eq!((s.nodes, s.cutoffs), (u64::MAX, 7));
    }
}
