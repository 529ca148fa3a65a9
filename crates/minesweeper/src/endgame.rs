//! Exhaustive endgame search: when few mine layouts remain, find the guess with the highest
//! probability of winning the whole game, not just of surviving the next click.
//!
//! Every mine layout consistent with the position is listed (as a bit mask over the undecided
//! cells, at most 64), by a backtracking enumeration over the constraints ([`layouts`]). A
//! guess splits the layouts by what it shows (or loses when it is a mine); after each
//! observation every cell that is safe in all remaining layouts is revealed for free, which
//! splits them further; the game is won when one layout is left. The best guess maximises the
//! probability of winning over the remaining choices, found by a memoised search with a work
//! budget (over budget, the caller falls back to its usual choice).
//!
//! Two cuts keep the search small without changing its answer: candidates are tried safest
//! first, and a guess whose safety cannot beat the best win probability found so far is
//! skipped (a guess never wins more often than it survives); inside one guess, the outcomes
//! still to be searched are bounded by their share of the layouts, so a guess that can no
//! longer beat the best is abandoned.

use std::collections::HashMap;

/// An "exactly `count` mines among the cells of `mask`" rule over the undecided cells.
pub(crate) type Rule = (u64, u32);

/// All layouts of `cells` undecided cells (at most 64) that satisfy every rule and, when
/// `mines` is given, hold exactly that many mines, in increasing order of their masks; `None`
/// when there are more than `max` layouts or the enumeration needs more than `max_nodes` steps.
pub(crate) fn layouts(
    cells: usize,
    rules: &[Rule],
    mines: Option<u32>,
    max: usize,
    max_nodes: u64,
) -> Option<Vec<u64>> {
    if cells > 64 || mines.is_some_and(|m| m as usize > cells) {
        return None;
    }
    let full = if cells == 64 {
        u64::MAX
    } else {
        (1u64 << cells) - 1
    };
    if rules.iter().any(|&(mask, _)| mask & !full != 0) {
        return None;
    }
    if rules.iter().any(|&(mask, k)| mask == 0 && k != 0) {
        return Some(Vec::new());
    }
    // The rules each cell belongs to.
    let mut of_cell: Vec<Vec<usize>> = vec![Vec::new(); cells];
    for (r, &(mask, _)) in rules.iter().enumerate() {
        for (i, list) in of_cell.iter_mut().enumerate() {
            if mask >> i & 1 == 1 {
                list.push(r);
            }
        }
    }
    let mut e = Enumeration {
        cells,
        rules,
        of_cell,
        placed: vec![0; rules.len()],
        total: mines,
        out: Vec::new(),
        max,
        nodes: 0,
        max_nodes,
    };
    e.run(0, 0, 0)?;
    e.out.sort_unstable();
    Some(e.out)
}

/// The state of the backtracking enumeration of [`layouts`].
struct Enumeration<'a> {
    cells: usize,
    rules: &'a [Rule],
    of_cell: Vec<Vec<usize>>,
    /// Mines placed so far in each rule.
    placed: Vec<u32>,
    total: Option<u32>,
    out: Vec<u64>,
    max: usize,
    nodes: u64,
    max_nodes: u64,
}

impl Enumeration<'_> {
    /// Cells `0..i` are decided (`layout`, with `mines` mines): extend to the rest. `None`
    /// aborts the whole enumeration (too many layouts or steps).
    fn run(&mut self, i: usize, layout: u64, mines: u32) -> Option<()> {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return None;
        }
        if i == self.cells {
            if self.total.is_none_or(|t| mines == t) {
                if self.out.len() >= self.max {
                    return None;
                }
                self.out.push(layout);
            }
            return Some(());
        }
        let later = if i + 1 >= 64 {
            0
        } else {
            !((1u64 << (i + 1)) - 1)
        };
        let left_after = (self.cells - i - 1) as u32;
        for value in [0u32, 1] {
            let m = mines + value;
            if self.total.is_some_and(|t| m > t || m + left_after < t) {
                continue;
            }
            let fits = self.of_cell[i].iter().all(|&r| {
                let (mask, k) = self.rules[r];
                let p = self.placed[r] + value;
                p <= k && p + (mask & later).count_ones() >= k
            });
            if !fits {
                continue;
            }
            for idx in 0..self.of_cell[i].len() {
                let r = self.of_cell[i][idx];
                self.placed[r] += value;
            }
            let result = self.run(i + 1, layout | u64::from(value) << i, m);
            for idx in 0..self.of_cell[i].len() {
                let r = self.of_cell[i][idx];
                self.placed[r] -= value;
            }
            result?;
        }
        Some(())
    }
}

/// An endgame: undecided cells, their neighbourhoods and the consistent layouts.
#[derive(Debug)]
pub(crate) struct Endgame {
    /// For each undecided cell: bit mask of its undecided neighbours, and how many of its other
    /// neighbours are known mines.
    neighbours: Vec<(u64, u8)>,
    /// Consistent layouts: bit i set when undecided cell i holds a mine.
    layouts: Vec<u64>,
    memo: HashMap<(Vec<u64>, u64), f64>,
    /// Work done so far (layouts handled), against `budget`.
    work: u64,
    budget: u64,
}

impl Endgame {
    /// An endgame over at most 64 undecided cells: each cell's undecided-neighbour mask and
    /// known-mine count, and the consistent layouts; `budget` bounds the work (layouts
    /// handled over the whole search).
    pub(crate) fn new(neighbours: Vec<(u64, u8)>, layouts: Vec<u64>, budget: u64) -> Endgame {
        Endgame {
            neighbours,
            layouts,
            memo: HashMap::new(),
            work: 0,
            budget,
        }
    }

    /// The number a safe cell `i` shows in `layout`.
    fn shows(&self, i: usize, layout: u64) -> u8 {
        let (mask, known) = self.neighbours[i];
        known + (layout & mask).count_ones() as u8
    }

    fn all(&self) -> u64 {
        let n = self.neighbours.len();
        if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
    }

    /// The best first guess (an undecided cell index) and its win probability, or `None` when
    /// the search exceeds its budget. Ties go to the safer cell, then the lower index.
    pub(crate) fn best_guess(&mut self) -> Option<(usize, f64)> {
        let layouts = std::mem::take(&mut self.layouts);
        let result = self.choose(&layouts, 0);
        self.layouts = layouts;
        let (cell, p) = result?;
        Some((cell?, p))
    }

    /// The best guess with these layouts left (at least two, no free cell) and these cells
    /// revealed: its index (`None` when every cell is a mine in every layout) and win
    /// probability.
    fn choose(&mut self, layouts: &[u64], revealed: u64) -> Option<(Option<usize>, f64)> {
        let n = self.neighbours.len();
        let len = layouts.len();
        self.work += len as u64;
        if self.work > self.budget {
            return None;
        }
        let mut mines = vec![0usize; n];
        for &l in layouts {
            let mut m = l;
            while m != 0 {
                mines[m.trailing_zeros() as usize] += 1;
                m &= m - 1;
            }
        }
        let mut candidates: Vec<(usize, usize)> = (0..n)
            .filter(|&i| revealed >> i & 1 == 0 && mines[i] < len)
            .map(|i| (len - mines[i], i))
            .collect();
        candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut best: (Option<usize>, f64) = (None, 0.0);
        for (safe, i) in candidates {
            if safe as f64 / len as f64 <= best.1 + 1e-12 {
                break;
            }
            let p = self.guess(layouts, revealed, i, best.1)?;
            if p > best.1 + 1e-12 {
                best = (Some(i), p);
            }
        }
        Some(best)
    }

    /// Win probability of guessing cell `i` (not yet revealed) with these layouts left; when
    /// it cannot exceed `bound`, some value at most `bound`.
    fn guess(&mut self, layouts: &[u64], revealed: u64, i: usize, bound: f64) -> Option<f64> {
        self.work += layouts.len() as u64;
        if self.work > self.budget {
            return None;
        }
        let bit = 1u64 << i;
        let safe: Vec<u64> = layouts.iter().copied().filter(|l| l & bit == 0).collect();
        let len = layouts.len() as f64;
        let mut remaining = safe.len() as f64;
        let mut total = 0.0;
        for group in self.split(&safe, i) {
            let g = group.len() as f64;
            remaining -= g;
            total += g * self.win(group, revealed | bit)?;
            if (total + remaining) / len <= bound + 1e-12 {
                return Some((total + remaining) / len);
            }
        }
        Some(total / len)
    }

    /// Groups layouts by the number cell `i` shows, in order of first appearance.
    fn split(&self, layouts: &[u64], i: usize) -> Vec<Vec<u64>> {
        let mut groups: Vec<(u8, Vec<u64>)> = Vec::new();
        for &l in layouts {
            let v = self.shows(i, l);
            match groups.iter_mut().find(|(k, _)| *k == v) {
                Some((_, g)) => g.push(l),
                None => groups.push((v, vec![l])),
            }
        }
        groups.into_iter().map(|(_, g)| g).collect()
    }

    /// Groups layouts by the numbers all the cells of `cells` show (packed four bits per
    /// cell into a sort key), in increasing order of that key.
    fn split_all(&self, layouts: &[u64], cells: u64) -> Vec<Vec<u64>> {
        let mut keyed: Vec<([u128; 2], u64)> = layouts
            .iter()
            .map(|&l| {
                let mut key = [0u128; 2];
                let mut m = cells;
                let mut slot = 0usize;
                while m != 0 {
                    let i = m.trailing_zeros() as usize;
                    m &= m - 1;
                    key[slot / 32] |= u128::from(self.shows(i, l)) << (4 * (slot % 32));
                    slot += 1;
                }
                (key, l)
            })
            .collect();
        keyed.sort_unstable();
        let mut groups: Vec<Vec<u64>> = Vec::new();
        let mut last = None;
        for (key, l) in keyed {
            match groups.last_mut() {
                Some(g) if last == Some(key) => g.push(l),
                _ => groups.push(vec![l]),
            }
            last = Some(key);
        }
        groups
    }

    /// Win probability with these layouts left and these cells revealed, playing optimally.
    fn win(&mut self, layouts: Vec<u64>, revealed: u64) -> Option<f64> {
        if layouts.len() <= 1 {
            return Some(1.0);
        }
        let any_mine = layouts.iter().fold(0u64, |a, &l| a | l);
        // Cells safe in every layout are revealed for free: split by what they show.
        let free = self.all() & !any_mine & !revealed;
        if free != 0 {
            self.work += layouts.len() as u64 * u64::from(free.count_ones());
            if self.work > self.budget {
                return None;
            }
            let total = layouts.len() as f64;
            let mut p = 0.0;
            for g in self.split_all(&layouts, free) {
                p += g.len() as f64 * self.win(g, revealed | free)?;
            }
            return Some(p / total);
        }
        let mut layouts = layouts;
        layouts.sort_unstable();
        let key = (layouts, revealed);
        if let Some(&p) = self.memo.get(&key) {
            return Some(p);
        }
        let (_, best) = self.choose(&key.0, revealed)?;
        self.memo.insert(key, best);
        Some(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups layouts by the number cell `i` shows, counting its mined neighbours one by one
    /// (independently of [`Endgame::shows`]).
    fn reference_split(e: &Endgame, layouts: &[u64], i: usize) -> Vec<Vec<u64>> {
        let (mask, known) = e.neighbours[i];
        let mut groups: Vec<(usize, Vec<u64>)> = Vec::new();
        for &l in layouts {
            let v = usize::from(known)
                + (0..e.neighbours.len())
                    .filter(|&j| mask >> j & 1 == 1 && l >> j & 1 == 1)
                    .count();
            match groups.iter_mut().find(|(k, _)| *k == v) {
                Some((_, g)) => g.push(l),
                None => groups.push((v, vec![l])),
            }
        }
        groups.into_iter().map(|(_, g)| g).collect()
    }

    /// Plain exhaustive search without any cut, as a reference.
    fn reference_win(e: &Endgame, layouts: &[u64], revealed: u64) -> f64 {
        if layouts.len() <= 1 {
            return 1.0;
        }
        let n = e.neighbours.len();
        let any_mine = layouts.iter().fold(0u64, |a, &l| a | l);
        let free = e.all() & !any_mine & !revealed;
        if free != 0 {
            let mut groups = vec![layouts.to_vec()];
            for i in (0..n).filter(|&i| free >> i & 1 == 1) {
                groups = groups
                    .iter()
                    .flat_map(|g| reference_split(e, g, i))
                    .collect();
            }
            let p: f64 = groups
                .iter()
                .map(|g| g.len() as f64 * reference_win(e, g, revealed | free))
                .sum();
            return p / layouts.len() as f64;
        }
        (0..n)
            .filter(|&i| revealed >> i & 1 == 0)
            .map(|i| {
                let safe: Vec<u64> = layouts
                    .iter()
                    .copied()
                    .filter(|l| l >> i & 1 == 0)
                    .collect();
                reference_split(e, &safe, i)
                    .iter()
                    .map(|g| g.len() as f64 * reference_win(e, g, revealed | 1 << i))
                    .sum::<f64>()
                    / layouts.len() as f64
            })
            .fold(0.0, f64::max)
    }

    /// A revealed cell may show 8: the numbers that group layouts must not run into one
    /// another. Cell 0 touches cells 3 to 10, cells 1 and 2 touch cells 11 and 12. Cell 2
    /// is safe in every layout, and its number singles out the first; in the other two,
    /// cells 0 and 1 are safe and show 8 and 0, or 0 and 1, which tells them apart: a sure
    /// win.
    #[test]
    fn a_cell_showing_eight_still_tells_layouts_apart() {
        let mut neighbours = vec![(0b111_1111_1000, 0), (1 << 11, 0), (1 << 12, 0)];
        neighbours.resize(13, (0, 0));
        let layouts = vec![0b1_0000_0000_0011, 0b111_1111_1000, 1 << 11];
        let mut e = Endgame::new(neighbours, layouts.clone(), 1_000_000);
        assert_eq!(e.shows(0, 0b111_1111_1000), 8);
        let (cell, p) = e.best_guess().unwrap();
        assert!((p - reference_win(&e, &layouts, 0)).abs() < 1e-12, "{p}");
        assert!((p - 1.0).abs() < 1e-12, "{p}");
        assert_eq!(cell, 2);
    }

    /// Seventeen or more cells revealed at once: their numbers group the layouts by a key
    /// of 4 bits a cell, 32 cells to a word, and cells 0 and 16 must not share bits. Two
    /// layouts (a mine at cell 20 or at 21); the 20 cells safe in both are revealed at once,
    /// and cell 0 (next to 21) or cell 16 (next to 20) shows which: a sure win.
    #[test]
    fn many_cells_revealed_at_once_keep_their_numbers_apart() {
        let mut neighbours = vec![(0u64, 0u8); 22];
        neighbours[0] = (1 << 21, 0);
        neighbours[16] = (1 << 20, 0);
        let mut e = Endgame::new(neighbours, vec![], u64::MAX);
        assert_eq!(e.win(vec![1 << 20, 1 << 21], 0), Some(1.0));
    }

    /// Sixty-four cells, the most the layouts hold: the last cell's rule is checked as
    /// filled too (one mine among cells 62 and 63, none below them: two layouts).
    #[test]
    fn the_sixty_fourth_cell_closes_its_rules() {
        let rules = [(3u64 << 62, 1), ((1u64 << 62) - 1, 0)];
        assert_eq!(
            layouts(64, &rules, None, 10, u64::MAX),
            Some(vec![1 << 62, 1 << 63])
        );
    }

    #[test]
    fn a_pure_fifty_fifty_is_a_coin_flip() {
        // Two isolated cells, one mine, nothing around: either guess wins half the time.
        let mut e = Endgame::new(vec![(0, 0), (0, 0)], vec![0b01, 0b10], 1000);
        let (_, p) = e.best_guess().unwrap();
        assert!((p - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_cell_shows_its_known_mines_and_its_mined_neighbours() {
        // Cell 0 touches cells 1 and 2 and one known mine outside the endgame.
        let e = Endgame::new(vec![(0b110, 1), (0b001, 0), (0b001, 0)], vec![], 10);
        assert_eq!(e.shows(0, 0b000), 1);
        assert_eq!(e.shows(0, 0b010), 2);
        assert_eq!(e.shows(0, 0b110), 3);
        assert_eq!(e.shows(1, 0b100), 0);
        assert_eq!(e.all(), 0b111);
        assert_eq!(Endgame::new(vec![(0, 0); 64], vec![], 10).all(), u64::MAX);
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
        // Guessing 0 also resolves (it touches cell 2): 2/3; guessing 1 shows nothing: 1/3.
        assert!((p - 2.0 / 3.0).abs() < 1e-12, "{p}");
        assert_ne!(cell, 1, "cell 1 shows nothing useful");
        // Cells 0 and 2 tie, equally safe: the lower index goes first.
        assert_eq!(cell, 0);
    }

    #[test]
    fn ties_go_to_the_safer_cell() {
        // Four cells on a path 1 - 0 - 2 - 3, cells 0 and 2 each touching one known mine,
        // two mines among the four in one of four layouts: {0, 2}, {1, 2}, {0, 3}, {2, 3}.
        // Cells 0 and 1 both win half the time, but cell 1 is safer (3/4 against 1/2).
        let neighbours = vec![(0b0110, 1), (0b0001, 0), (0b1001, 1), (0b0100, 0)];
        let mut e = Endgame::new(neighbours, vec![0b0101, 0b0110, 0b1001, 0b1100], 1000);
        let (cell, p) = e.best_guess().unwrap();
        assert_eq!(cell, 1);
        assert!((p - 0.5).abs() < 1e-12, "{p}");
    }

    #[test]
    fn the_budget_is_the_work_done() {
        // The coin flip takes 4 units: 2 layouts to weigh the candidates, 2 to try the first.
        let coin = |budget| Endgame::new(vec![(0, 0), (0, 0)], vec![0b01, 0b10], budget);
        assert_eq!(coin(4).best_guess(), Some((0, 0.5)));
        assert_eq!(coin(3).best_guess(), None);
        // One mine among cells 0-3; cells 4 and 5 are safe, 4 touching cell 0, 5 touching
        // cell 2, and cell 0 touching cell 1. Weighing the candidates takes 4 units and
        // trying cell 4 another 4. Unless cell 0 is the mine, cell 4 shows 0, and cells 0
        // and 5, now safe in the 3 layouts left, are revealed for free: 3 x 2 = 6 more. Their
        // numbers tell the three apart, so the search ends there, won, after 14 units.
        let free = |budget| {
            let neighbours = vec![
                (0b000010, 0),
                (0, 0),
                (0, 0),
                (0, 0),
                (0b000001, 0),
                (0b000100, 0),
            ];
            Endgame::new(neighbours, vec![0b0001, 0b0010, 0b0100, 0b1000], budget)
        };
        assert_eq!(free(14).best_guess(), Some((4, 1.0)));
        assert_eq!(free(13).best_guess(), None);
    }

    #[test]
    fn over_budget_gives_up() {
        let layouts: Vec<u64> = (0..64u64).map(|i| i | 1 << 6).collect();
        let neighbours = vec![(0, 0); 7];
        let mut e = Endgame::new(neighbours, layouts, 3);
        assert!(e.best_guess().is_none());
    }

    #[test]
    fn the_cuts_do_not_change_the_answer() {
        // Random small endgames on a 3x3 or 4x2 patch of cells: the cut search must find the
        // same win probability as the plain search, and its guess must achieve it.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..60 {
            let (w, h) = if case % 2 == 0 { (3, 3) } else { (4, 2) };
            let n = w * h;
            let neighbours: Vec<(u64, u8)> = (0..n)
                .map(|i| {
                    let (x, y) = ((i % w) as i64, (i / w) as i64);
                    let mut mask = 0u64;
                    for j in 0..n {
                        let (a, b) = ((j % w) as i64, (j / w) as i64);
                        if j != i && (a - x).abs() <= 1 && (b - y).abs() <= 1 {
                            mask |= 1 << j;
                        }
                    }
                    (mask, (next() % 2) as u8)
                })
                .collect();
            let mines = 1 + (next() % 3) as u32;
            let all: Vec<u64> = (0..1u64 << n).filter(|l| l.count_ones() == mines).collect();
            // Keep a random subset of the layouts, as if some numbers had ruled the rest out.
            let layouts: Vec<u64> = all.into_iter().filter(|_| next() % 4 == 0).collect();
            if layouts.len() < 2 {
                continue;
            }
            let mut e = Endgame::new(neighbours, layouts.clone(), u64::MAX);
            let (cell, p) = e.best_guess().unwrap();
            let expected = reference_win(&e, &layouts, 0);
            assert!(
                (p - expected).abs() < 1e-9,
                "case {case}: {p} vs {expected}"
            );
            // The chosen cell achieves the optimum on its own.
            let safe: Vec<u64> = layouts
                .iter()
                .copied()
                .filter(|l| l >> cell & 1 == 0)
                .collect();
            let achieved: f64 = reference_split(&e, &safe, cell)
                .iter()
                .map(|g| g.len() as f64 * reference_win(&e, g, 1 << cell))
                .sum::<f64>()
                / layouts.len() as f64;
            assert!((achieved - expected).abs() < 1e-9, "case {case}");
        }
    }

    #[test]
    fn enumeration_matches_brute_force() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200 {
            let n = 1 + (next() % 12) as usize;
            let rules: Vec<Rule> = (0..next() % 5)
                .map(|_| {
                    let mask = next() & ((1u64 << n) - 1);
                    (mask, (next() % 4) as u32)
                })
                .collect();
            let mines = (next() % (n as u64 + 1)) as u32;
            let expected: Vec<u64> = (0..1u64 << n)
                .filter(|l| l.count_ones() == mines)
                .filter(|l| rules.iter().all(|&(m, k)| (l & m).count_ones() == k))
                .collect();
            let got = layouts(n, &rules, Some(mines), usize::MAX, u64::MAX).unwrap();
            assert_eq!(got, expected);
            if expected.len() > 1 {
                assert!(layouts(n, &rules, Some(mines), expected.len() - 1, u64::MAX).is_none());
            }
            // Without a mine count: every layout that satisfies the rules.
            let any: Vec<u64> = (0..1u64 << n)
                .filter(|l| rules.iter().all(|&(m, k)| (l & m).count_ones() == k))
                .collect();
            assert_eq!(layouts(n, &rules, None, usize::MAX, u64::MAX).unwrap(), any);
        }
    }

    #[test]
    fn enumeration_counts_its_steps() {
        // Twenty cells that must all be mines: the count alone leaves one line of play, 21
        // steps deep (the root and one step a cell). A budget of 21 steps is enough, 20 is
        // not; the same with no mine at all.
        for mines in [20, 0] {
            let all = if mines == 0 { 0 } else { (1u64 << 20) - 1 };
            assert_eq!(layouts(20, &[], Some(mines), 10, 21), Some(vec![all]));
            assert_eq!(layouts(20, &[], Some(mines), 10, 20), None);
        }
        // Without a count, three free cells list all eight layouts in 15 steps.
        assert_eq!(layouts(3, &[], None, 8, 15), Some((0..8).collect()));
        assert_eq!(layouts(3, &[], None, 8, 14), None);
        assert_eq!(layouts(3, &[], None, 7, 15), None);
    }

    #[test]
    fn enumeration_refuses_rules_outside_its_cells() {
        assert_eq!(layouts(2, &[(0b100, 1)], None, 10, u64::MAX), None);
        assert_eq!(layouts(2, &[(0b11, 1)], Some(3), 10, u64::MAX), None);
        // A rule over no cell that asks for a mine cannot hold; one that asks for none can.
        assert_eq!(layouts(2, &[(0, 1)], None, 10, u64::MAX), Some(vec![]));
        assert_eq!(
            layouts(2, &[(0, 0)], None, 10, u64::MAX),
            Some(vec![0, 1, 2, 3])
        );
    }

    #[test]
    fn enumeration_handles_64_cells() {
        // 64 cells, 2 mines, one rule: exactly one mine among the first two cells.
        let got = layouts(64, &[(0b11, 1)], Some(2), 1000, u64::MAX).unwrap();
        assert_eq!(got.len(), 2 * 62);
        assert!(
            got.iter()
                .all(|l| l.count_ones() == 2 && (l & 0b11).count_ones() == 1)
        );
        assert!(layouts(65, &[], Some(1), 1000, u64::MAX).is_none());
    }
}
