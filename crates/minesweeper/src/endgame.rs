//! Exhaustive endgame search: when few cells are undecided, find the guess with the highest
//! probability of winning the whole game, not just of surviving the next click.
//!
//! Every mine layout consistent with the position is listed (as a bit mask over the undecided
//! cells). A guess splits the layouts by what it shows (or loses when it is a mine); after each
//! observation every cell that is safe in all remaining layouts is revealed for free, which
//! splits them further; the game is won when one layout is left. The best guess maximises the
//! probability of winning over the remaining choices, found by a memoised search with a node
//! budget (over budget, the caller falls back to its usual choice).

use std::collections::HashMap;

/// An endgame: undecided cells, their neighbourhoods and the consistent layouts.
#[derive(Debug)]
pub(crate) struct Endgame {
    /// For each undecided cell: bit mask of its undecided neighbours, and how many of its other
    /// neighbours are known mines.
    neighbours: Vec<(u32, u8)>,
    /// Consistent layouts: bit i set when undecided cell i holds a mine.
    layouts: Vec<u32>,
    memo: HashMap<(Vec<u32>, u32), f64>,
    nodes: u64,
    budget: u64,
}

impl Endgame {
    /// An endgame over `cells` undecided cells (at most 31): each cell's undecided-neighbour
    /// mask and known-mine count, and the consistent layouts.
    pub(crate) fn new(neighbours: Vec<(u32, u8)>, layouts: Vec<u32>, budget: u64) -> Endgame {
        Endgame {
            neighbours,
            layouts,
            memo: HashMap::new(),
            nodes: 0,
            budget,
        }
    }

    /// The number a safe cell `i` shows in `layout`.
    fn shows(&self, i: usize, layout: u32) -> u8 {
        let (mask, known) = self.neighbours[i];
        known + (layout & mask).count_ones() as u8
    }

    /// The best first guess (an undecided cell index) and its win probability, or `None` when
    /// the search exceeds its budget.
    pub(crate) fn best_guess(&mut self) -> Option<(usize, f64)> {
        let layouts = self.layouts.clone();
        let mut best: Option<(usize, f64)> = None;
        for i in 0..self.neighbours.len() {
            let p = self.guess(&layouts, 0, i)?;
            if best.is_none_or(|(_, b)| p > b + 1e-12) {
                best = Some((i, p));
            }
        }
        best
    }

    /// Win probability of guessing cell `i` (not yet revealed) with these layouts left.
    fn guess(&mut self, layouts: &[u32], revealed: u32, i: usize) -> Option<f64> {
        let bit = 1u32 << i;
        if revealed & bit != 0 {
            return Some(0.0);
        }
        let safe: Vec<u32> = layouts.iter().copied().filter(|l| l & bit == 0).collect();
        if safe.is_empty() {
            return Some(0.0);
        }
        let mut total = 0.0;
        for group in self.split(&safe, i) {
            total += group.len() as f64 * self.win(group, revealed | bit)?;
        }
        Some(total / layouts.len() as f64)
    }

    /// Groups layouts by the number cell `i` shows.
    fn split(&self, layouts: &[u32], i: usize) -> Vec<Vec<u32>> {
        let mut groups: Vec<(u8, Vec<u32>)> = Vec::new();
        for &l in layouts {
            let v = self.shows(i, l);
            match groups.iter_mut().find(|(k, _)| *k == v) {
                Some((_, g)) => g.push(l),
                None => groups.push((v, vec![l])),
            }
        }
        groups.into_iter().map(|(_, g)| g).collect()
    }

    /// Win probability with these layouts left and these cells revealed, playing optimally.
    fn win(&mut self, mut layouts: Vec<u32>, revealed: u32) -> Option<f64> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        if layouts.len() <= 1 {
            return Some(1.0);
        }
        let n = self.neighbours.len();
        let any_mine = layouts.iter().fold(0u32, |a, &l| a | l);
        let all = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
        // Cells safe in every layout are revealed for free: split by what they show.
        let free = all & !any_mine & !revealed;
        if free != 0 {
            let mut groups = vec![layouts];
            for i in (0..n).filter(|&i| free >> i & 1 == 1) {
                groups = groups.iter().flat_map(|g| self.split(g, i)).collect();
            }
            if groups.len() > 1 {
                let total: usize = groups.iter().map(Vec::len).sum();
                let mut p = 0.0;
                for g in groups {
                    p += g.len() as f64 * self.win(g, revealed | free)?;
                }
                return Some(p / total as f64);
            }
            layouts = groups.pop().unwrap_or_default();
            return self.win(layouts, revealed | free);
        }
        layouts.sort_unstable();
        let key = (layouts, revealed);
        if let Some(&p) = self.memo.get(&key) {
            return Some(p);
        }
        let mut best = 0.0f64;
        for i in 0..n {
            if revealed >> i & 1 == 0 {
                best = best.max(self.guess(&key.0, revealed, i)?);
            }
        }
        self.memo.insert(key, best);
        Some(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pure_fifty_fifty_is_a_coin_flip() {
        // Two isolated cells, one mine, nothing around: either guess wins half the time.
        let mut e = Endgame::new(vec![(0, 0), (0, 0)], vec![0b01, 0b10], 1000);
        let (_, p) = e.best_guess().unwrap();
        assert!((p - 0.5).abs() < 1e-12);
    }

    #[test]
    fn prefers_the_cell_that_resolves_the_rest() {
        // Cells 0 and 1 form a 50/50; cell 2 is safe in 2 of 3 layouts and, when safe, its
        // number tells where the mine is (it touches cell 0 only).
        // Layouts: mine at 0, mine at 1, mine at 2 (one mine).
        let neighbours = vec![(0b100, 0), (0b000, 0), (0b001, 0)];
        let mut e = Endgame::new(neighbours, vec![0b001, 0b010, 0b100], 1000);
        let (cell, p) = e.best_guess().unwrap();
        // Guessing 2: safe with 2/3, then its number resolves 0 vs 1: win 2/3.
        // Guessing 0 or 1 directly: safe 2/3, then a 50/50 between the other two: 1/3... unless
        // the revealed number helps; cell 0 touches cell 2, so guessing 0 also resolves: 2/3.
        assert!((p - 2.0 / 3.0).abs() < 1e-12, "{p}");
        assert_ne!(cell, 1, "cell 1 shows nothing useful");
    }

    #[test]
    fn over_budget_gives_up() {
        let layouts: Vec<u32> = (0..64u32).map(|i| i | 1 << 6).collect();
        let neighbours = vec![(0, 0); 7];
        let mut e = Endgame::new(neighbours, layouts, 3);
        assert!(e.best_guess().is_none());
    }
}
