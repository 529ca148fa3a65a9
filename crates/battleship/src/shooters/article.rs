//! The published article's strategy and its biased sequential sampler, kept as a faithful
//! baseline to measure the other shooters against.

use rand::{Rng, RngExt};

use super::{Decision, Shooter, argmax, meeting, neighbours4};
use crate::Error;
use crate::game::View;
use crate::rules::{Geometry, cells_of};

/// The published article's strategy, as a baseline:
///
/// 1. cells where no afloat ship fits (counting only misses as obstacles) are marked as
///    misses, repeatedly;
/// 2. if unexplained hits exist, "finish the chain": with one hit, its first unshot neighbour
///    in the order up, down, left, right; with several, the orientation of the first two
///    hits in row-major order, extending before the first or after the last;
/// 3. otherwise (or when the chain cannot be extended, where the article's code would recurse
///    forever) 2000 layouts from its sequential sampler: afloat ships in random order, each
///    placed uniformly among its positions that avoid misses, earlier ships and cells
///    edge-adjacent to them, with backtracking; layouts ignore hits. The cell covered most
///    often wins, with a 5% bonus on cells with `(x + y)` even.
///
/// The sampler is biased (not uniform over fleets, forbids touching even when allowed,
/// ignores hits): it is here to be measured, and nothing else uses it. Ties are broken at
/// random (the article takes the first).
#[derive(Debug, Clone, Copy)]
pub struct ArticleShooter {
    /// Layouts sampled per decision (2000 in the article).
    pub samples: u32,
}

impl Default for ArticleShooter {
    fn default() -> Self {
        ArticleShooter { samples: 2000 }
    }
}

/// The article's sequential sampler: one layout of ships `lengths` avoiding `blocked`
/// (ships may not share an edge), or `None` when the backtracking fails or a length is none
/// of the rules' ships (whose placements the sampler draws from). For many layouts of
/// one position, keep an [`ArticleSampler`]: it draws from the same distribution, faster.
pub fn article_layout(
    geo: &Geometry,
    lengths: &[usize],
    blocked: u128,
    rng: &mut dyn Rng,
) -> Option<u128> {
    ArticleSampler::new(geo, lengths, blocked).sample(rng)
}

/// The article's sequential sampler for one position: afloat ships in random order, each
/// placed uniformly among its positions that avoid `blocked`, earlier ships and the cells
/// edge-adjacent to them, backtracking to another position when the rest cannot be placed.
///
/// It remembers the partial layouts that turned out to have no completion, so that the next
/// draws do not search the same dead ends again: on crowded boards one draw could otherwise
/// take seconds (37 s for one shot of 2000 draws was seen). Whether a partial layout can be
/// completed does not depend on the random choices made below it, so skipping a known dead
/// end changes the time, never the distribution of the layouts drawn.
#[derive(Debug)]
pub struct ArticleSampler<'a> {
    geo: &'a Geometry,
    /// Ship lengths, sorted, so that ships of one length are neighbours.
    lengths: Vec<usize>,
    /// Per ship (as in `lengths`): the index of the first ship of its length.
    group: Vec<usize>,
    /// Per ship: the fleet ship of the same length whose placement families it uses.
    family: Vec<usize>,
    /// Every length is one of the rules' ships (else there is no layout to draw).
    known: bool,
    blocked: u128,
    /// `(layout, ships left)` states without completion; the ships left are a canonical
    /// mask (the lowest bits of each length's group), since ships of one length are alike.
    dead: std::collections::HashSet<(u128, u32)>,
    /// Placements tried by the current draw.
    nodes: u64,
    /// Whether a draw ran out of [`MAX_DRAW_NODES`]: the position is then given up.
    gave_up: bool,
}

/// Placements one draw may try before the sampler gives up on the position (a crowded
/// board whose ships cannot all avoid sharing an edge can have astronomically many partial
/// layouts, none of them completable).
pub const MAX_DRAW_NODES: u64 = 1_000_000;

/// Dead ends remembered at most (a set of about 64 MiB); past it the memory starts afresh.
const MAX_DEAD: usize = 1 << 20;

impl<'a> ArticleSampler<'a> {
    /// A sampler of layouts of ships `lengths` avoiding `blocked`. Dead ends are remembered
    /// for fleets of up to 32 ships ([`crate::MAX_SHIPS`]); larger ones are searched afresh.
    pub fn new(geo: &'a Geometry, lengths: &[usize], blocked: u128) -> Self {
        let mut lengths = lengths.to_vec();
        lengths.sort_unstable();
        let group = (0..lengths.len())
            .map(|i| lengths.iter().position(|&l| l == lengths[i]).unwrap_or(i))
            .collect();
        let fleet = &geo.rules().fleet;
        let family: Vec<Option<usize>> = lengths
            .iter()
            .map(|&l| fleet.iter().position(|s| s.length == l))
            .collect();
        let known = family.iter().all(Option::is_some);
        let family = family.into_iter().map(Option::unwrap_or_default).collect();
        ArticleSampler {
            geo,
            lengths,
            group,
            family,
            known,
            blocked,
            dead: std::collections::HashSet::new(),
            nodes: 0,
            gave_up: false,
        }
    }

    /// One layout (the union of the ships' cells), or `None` when no layout exists (none
    /// does with a length that is none of the rules' ships), or when a draw tried
    /// [`MAX_DRAW_NODES`] placements without finding one: the sampler then gives up on the
    /// position, and every later draw is `None` too.
    pub fn sample(&mut self, rng: &mut dyn Rng) -> Option<u128> {
        if !self.known || self.gave_up {
            return None;
        }
        self.nodes = 0;
        let n = self.lengths.len();
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            order.swap(i, j);
        }
        // The mask of ships left; 0 (no memory) past 32 ships.
        let left = match n {
            0..32 => (1u32 << n) - 1,
            32 => u32::MAX,
            _ => 0,
        };
        self.place(&order, 0, 0, left, rng)
    }

    fn place(
        &mut self,
        order: &[usize],
        k: usize,
        layout: u128,
        left: u32,
        rng: &mut dyn Rng,
    ) -> Option<u128> {
        if k == order.len() {
            return Some(layout);
        }
        self.nodes += 1;
        if self.nodes > MAX_DRAW_NODES {
            self.gave_up = true;
            return None;
        }
        // The last ship fails or not by one pass over its positions: as quick as a lookup.
        let remember = left != 0 && k + 1 < order.len();
        if remember && self.dead.contains(&(layout, left)) {
            return None;
        }
        let ship = order[k];
        // The ships left after this one: its length's group loses its highest bit.
        let rest = if remember {
            let g = self.group[ship];
            let top = (g..self.lengths.len())
                .take_while(|&i| self.lengths[i] == self.lengths[g])
                .filter(|&i| left >> i & 1 == 1)
                .last()
                .unwrap_or(g);
            left & !(1u32 << top)
        } else {
            0
        };
        let avoid = self.blocked | layout | neighbours4(self.geo, layout);
        let mut cands: Vec<u128> = Vec::new();
        for f in self.geo.families(self.family[ship]) {
            let free = f.starts() & !meeting(f.shape(), avoid);
            cands.extend(cells_of(free).map(|s| f.cells(s as u32)));
        }
        while !cands.is_empty() {
            let i = rng.random_range(0..cands.len());
            let c = cands.swap_remove(i);
            if let Some(l) = self.place(order, k + 1, layout | c, rest, rng) {
                return Some(l);
            }
            if self.gave_up {
                // Not a dead end: the search stopped below.
                return None;
            }
        }
        if remember {
            if self.dead.len() >= MAX_DEAD {
                self.dead.clear();
            }
            self.dead.insert((layout, left));
        }
        None
    }
}

impl Shooter for ArticleShooter {
    fn name(&self) -> &'static str {
        "article"
    }
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        let geo = view.geometry();
        let rules = geo.rules();
        let (w, h) = (rules.width, rules.height);
        let unknown = view.unknown();
        if unknown == 0 {
            return Err(Error::NoCellLeft);
        }
        let lengths: Vec<usize> = view.afloat().map(|i| rules.fleet[i].length).collect();
        // 1. Constraint propagation: only misses block.
        let mut misses = view.misses() | view.pending();
        loop {
            let mut changed = false;
            for c in cells_of(unknown & !misses) {
                let fits = lengths.iter().any(|&l| {
                    [false, true].into_iter().any(|v| {
                        let (x, y) = (c % w, c / w);
                        (0..l).any(|k| {
                            let (sx, sy) = if v {
                                (Some(x), y.checked_sub(k))
                            } else {
                                (x.checked_sub(k), Some(y))
                            };
                            match (sx, sy) {
                                (Some(sx), Some(sy)) => (0..l).all(|i| {
                                    let (nx, ny) = if v { (sx, sy + i) } else { (sx + i, sy) };
                                    nx < w && ny < h && misses >> (ny * w + nx) & 1 == 0
                                }),
                                _ => false,
                            }
                        })
                    })
                });
                if !fits {
                    misses |= 1u128 << c;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let open = unknown & !misses;
        // 2. Finish hit chains.
        let hits: Vec<usize> = cells_of(view.unresolved_hits()).collect();
        let free = |x: i64, y: i64| -> Option<usize> {
            if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
                return None;
            }
            let c = y as usize * w + x as usize;
            (open >> c & 1 == 1).then_some(c)
        };
        let xy = |c: usize| ((c % w) as i64, (c / w) as i64);
        let chain = match hits.len() {
            0 => None,
            1 => {
                let (x, y) = xy(hits[0]);
                [(0, -1), (0, 1), (-1, 0), (1, 0)]
                    .into_iter()
                    .find_map(|(dx, dy)| free(x + dx, y + dy))
            }
            _ => {
                let (fx, fy) = xy(hits[0]);
                let (lx, ly) = xy(hits[hits.len() - 1]);
                let horizontal = fy == xy(hits[1]).1;
                if horizontal {
                    free(fx - 1, fy).or_else(|| free(lx + 1, ly))
                } else {
                    free(fx, fy - 1).or_else(|| free(lx, ly + 1))
                }
            }
        };
        if let Some(cell) = chain {
            // A rule, not a probability.
            return Ok(Decision {
                cell,
                estimated: false,
            });
        }
        // 3. The sampled probability map with the parity bonus.
        let mut count = vec![0u32; rules.cells()];
        let mut sampler = ArticleSampler::new(geo, &lengths, misses);
        for _ in 0..self.samples {
            if let Some(l) = sampler.sample(rng) {
                for c in cells_of(l & open) {
                    count[c] += 1;
                }
            }
        }
        let cell = argmax(
            if open != 0 { open } else { unknown },
            |c| {
                let p = f64::from(count[c]) / f64::from(self.samples.max(1));
                if (c % w + c / w).is_multiple_of(2) {
                    p * 1.05
                } else {
                    p
                }
            },
            rng,
        )?;
        Ok(Decision {
            cell,
            estimated: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::Rules;

    fn m(cells: &[usize]) -> u128 {
        cells.iter().fold(0, |a, &c| a | 1u128 << c)
    }

    /// The article's sampler without memory (its dead ends are searched on every draw).
    fn plain_article_layout(
        geo: &Geometry,
        lengths: &[usize],
        blocked: u128,
        rng: &mut dyn Rng,
    ) -> Option<u128> {
        fn place(
            geo: &Geometry,
            ships: &[usize],
            layout: u128,
            blocked: u128,
            rng: &mut dyn Rng,
        ) -> Option<u128> {
            let Some((&ship, rest)) = ships.split_first() else {
                return Some(layout);
            };
            let avoid = blocked | layout | neighbours4(geo, layout);
            let mut cands: Vec<u128> = geo
                .families(ship)
                .iter()
                .flat_map(|f| {
                    cells_of(f.starts() & !meeting(f.shape(), avoid)).map(|s| f.cells(s as u32))
                })
                .collect();
            while !cands.is_empty() {
                let c = cands.swap_remove(rng.random_range(0..cands.len()));
                if let Some(l) = place(geo, rest, layout | c, blocked, rng) {
                    return Some(l);
                }
            }
            None
        }
        let mut order: Vec<usize> = (0..lengths.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        place(geo, &order, 0, blocked, rng)
    }

    #[test]
    fn the_article_sampler_remembers_dead_ends_without_changing_its_distribution() {
        // A crowded 4x4 board (one cell blocked), where many partial layouts cannot be
        // completed: the remembering sampler and the plain one agree on every layout's
        // frequency within five standard deviations.
        let lengths = [3, 2, 2];
        let geo = Geometry::new(&Rules::with_lengths(4, 4, &lengths)).unwrap();
        let blocked = m(&[5]);
        let n = 20_000;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let mut sampler = ArticleSampler::new(&geo, &lengths, blocked);
        let mut fast = std::collections::HashMap::new();
        let mut plain = std::collections::HashMap::new();
        for _ in 0..n {
            let l = sampler.sample(&mut rng).unwrap();
            assert_eq!(l & blocked, 0);
            assert_eq!(l.count_ones(), 7);
            *fast.entry(l).or_insert(0u32) += 1;
            let l = plain_article_layout(&geo, &[0, 1, 2], blocked, &mut rng).unwrap();
            *plain.entry(l).or_insert(0u32) += 1;
        }
        assert!(
            !sampler.dead.is_empty(),
            "the board has dead ends to remember"
        );
        assert!(fast.len() > 10);
        for (l, &c) in &plain {
            let (p, q) = (
                f64::from(c) / n as f64,
                f64::from(fast.get(l).copied().unwrap_or(0)) / n as f64,
            );
            let sd = (2.0 * p * (1.0 - p) / n as f64).sqrt();
            assert!((p - q).abs() <= 5.0 * sd + 1e-3, "{l:#x}: {p} vs {q}");
        }
        assert!(fast.keys().all(|l| plain.contains_key(l)));
        // With no room at all, no layout.
        let full = geo.all_cells() & !m(&[0, 1, 2]);
        assert_eq!(
            ArticleSampler::new(&geo, &lengths, full).sample(&mut rng),
            None
        );
        // A length none of the rules' ships has: no layout, rather than another ship's.
        assert_eq!(article_layout(&geo, &[7], 0, &mut rng), None);
        // Past 32 ships nothing is remembered, and layouts still come.
        let geo = Geometry::new(&Rules::with_lengths(11, 11, &[1])).unwrap();
        let mut many = ArticleSampler::new(&geo, &[1; 34], 0);
        let l = many.sample(&mut rng).unwrap();
        assert_eq!(l.count_ones(), 34);
        assert_eq!(l & neighbours4(&geo, l), 0, "no two ships share an edge");
        assert!(many.dead.is_empty());
    }

    /// 32 ships of 4 tile a 16x8 board only by sharing edges, which the sampler forbids: no
    /// layout exists, among more partial layouts than any search can visit. The sampler
    /// gives up after its budget of placements, and then at once.
    #[test]
    fn an_impossible_crowded_position_is_given_up() {
        let geo = Geometry::new(&Rules::with_lengths(16, 8, &[4; 32])).unwrap();
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut sampler = ArticleSampler::new(&geo, &[4; 32], 0);
        assert_eq!(sampler.sample(&mut rng), None);
        assert!(sampler.gave_up);
        assert_eq!(sampler.nodes, MAX_DRAW_NODES + 1);
        // Given up: the next draw searches nothing.
        assert_eq!(sampler.sample(&mut rng), None);
        assert_eq!(sampler.nodes, MAX_DRAW_NODES + 1);
        // The shooter still fires, at an unknown cell.
        let view = View::new(geo.clone());
        let d = ArticleShooter { samples: 3 }
            .choose(&view, &mut rng)
            .unwrap();
        assert_eq!(view.unknown() >> d.cell & 1, 1);
    }
}
