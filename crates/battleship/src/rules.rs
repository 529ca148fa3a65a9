//! Rules as data: board size, fleet, adjacency, what the defender reveals, salvo size; and the
//! board geometry derived from them ([`Geometry`]).

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

use csp_core::Family;

use crate::Error;

/// The largest number of cells of a board: cells are bits of a `u128`.
pub const MAX_CELLS: usize = 128;

/// The largest number of ships in a fleet.
pub const MAX_SHIPS: usize = 32;

/// One ship type of a fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShipSpec {
    /// Its name, reported when it is sunk under the standard feedback.
    pub name: String,
    /// Its length in cells.
    pub length: usize,
}

impl ShipSpec {
    /// A ship type.
    pub fn new(name: &str, length: usize) -> ShipSpec {
        ShipSpec {
            name: name.to_owned(),
            length,
        }
    }
}

/// May ships touch?
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Adjacency {
    /// Ships may share edges and corners (only overlap is forbidden): the standard rule.
    Allowed,
    /// No two ships share an edge or a corner.
    NoTouch,
}

impl Adjacency {
    /// Both adjacency rules.
    pub const ALL: [Adjacency; 2] = [Adjacency::Allowed, Adjacency::NoTouch];

    /// The rule's name: `allowed` or `no-touch`.
    pub fn name(self) -> &'static str {
        match self {
            Adjacency::Allowed => "allowed",
            Adjacency::NoTouch => "no-touch",
        }
    }
}

impl FromStr for Adjacency {
    type Err = Error;
    /// Parses an adjacency rule's name (ignoring ASCII case and surrounding whitespace).
    fn from_str(s: &str) -> Result<Self, Error> {
        Adjacency::ALL
            .into_iter()
            .find(|a| s.trim().eq_ignore_ascii_case(a.name()))
            .ok_or_else(|| Error::UnknownName {
                kind: "adjacency rule",
                name: s.to_string(),
                expected: "allowed or no-touch".into(),
            })
    }
}

impl fmt::Display for Adjacency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the defender reveals after each shot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feedback {
    /// Hit or miss, and "sunk" with the ship's name when its last cell is hit.
    Standard,
    /// Hit or miss only (the game ends when every ship cell is hit).
    Bare,
    /// Hit or miss, every hit naming the ship it hit.
    HitNamesShip,
    /// As standard, and a sunk ship's cells are revealed.
    SunkRevealsCells,
}

impl Feedback {
    /// Every feedback rule.
    pub const ALL: [Feedback; 4] = [
        Feedback::Standard,
        Feedback::Bare,
        Feedback::HitNamesShip,
        Feedback::SunkRevealsCells,
    ];

    /// Whether sinking a ship is announced.
    pub fn reports_sunk(self) -> bool {
        self != Feedback::Bare
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Feedback::Standard => "standard",
            Feedback::Bare => "bare",
            Feedback::HitNamesShip => "hit-names-ship",
            Feedback::SunkRevealsCells => "sunk-reveals-cells",
        }
    }
}

impl FromStr for Feedback {
    type Err = Error;
    /// Parses a feedback rule's name (ignoring ASCII case and surrounding whitespace).
    fn from_str(s: &str) -> Result<Self, Error> {
        Feedback::ALL
            .into_iter()
            .find(|f| s.trim().eq_ignore_ascii_case(f.name()))
            .ok_or_else(|| Error::UnknownName {
                kind: "feedback",
                name: s.to_string(),
                expected: "standard, bare, hit-names-ship or sunk-reveals-cells".into(),
            })
    }
}

impl fmt::Display for Feedback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A complete rule set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// The ships, in a fixed order (ship `i` of a fleet has `fleet[i].length` cells).
    pub fleet: Vec<ShipSpec>,
    /// May ships touch?
    pub adjacency: Adjacency,
    /// What the defender reveals.
    pub feedback: Feedback,
    /// Shots per turn (1 = the classic game; k > 1 = salvo). The shooter picks all k cells
    /// of a turn before any answer; the answers then come shot by shot in the order of the
    /// picks, so a sinking names the shot that made it (as [`Feedback`] says for one shot).
    pub salvo: usize,
}

impl Default for Rules {
    /// [`Rules::standard`].
    fn default() -> Rules {
        Rules::standard()
    }
}

impl Rules {
    /// The standard fleet: Carrier 5, Battleship 4, Destroyer 3, Submarine 3, Patrol Boat 2.
    pub fn standard_fleet() -> Vec<ShipSpec> {
        vec![
            ShipSpec::new("Carrier", 5),
            ShipSpec::new("Battleship", 4),
            ShipSpec::new("Destroyer", 3),
            ShipSpec::new("Submarine", 3),
            ShipSpec::new("Patrol Boat", 2),
        ]
    }

    /// 10x10, the standard fleet, ships may touch, standard feedback, one shot per turn (also
    /// [`Rules::default`]).
    pub fn standard() -> Rules {
        Rules {
            width: 10,
            height: 10,
            fleet: Rules::standard_fleet(),
            adjacency: Adjacency::Allowed,
            feedback: Feedback::Standard,
            salvo: 1,
        }
    }

    /// A `width` x `height` board with ships of the given lengths (named `S0`, `S1`, ...),
    /// otherwise as [`Rules::standard`]: the quick way to small boards, e.g.
    /// `Rules { adjacency: Adjacency::NoTouch, ..Rules::with_lengths(4, 4, &[3, 2]) }`.
    /// Nothing is checked until [`Geometry::new`].
    pub fn with_lengths(width: usize, height: usize, lengths: &[usize]) -> Rules {
        Rules {
            width,
            height,
            fleet: lengths
                .iter()
                .enumerate()
                .map(|(i, &l)| ShipSpec::new(&format!("S{i}"), l))
                .collect(),
            ..Rules::standard()
        }
    }

    /// As [`Rules::standard`], but ships may not touch (not even diagonally).
    pub fn no_touch() -> Rules {
        Rules {
            adjacency: Adjacency::NoTouch,
            ..Rules::standard()
        }
    }

    /// The name of the rule set these rules follow, as [`Rules::by_name`] takes it:
    /// `standard` or `no-touch`, by their adjacency (whatever the board and fleet).
    ///
    /// ```
    /// use battleship::Rules;
    /// assert_eq!(Rules::by_name(" No-Touch ")?.rule_set_name(), "no-touch");
    /// # Ok::<(), battleship::Error>(())
    /// ```
    #[must_use]
    pub fn rule_set_name(&self) -> &'static str {
        match self.adjacency {
            Adjacency::Allowed => "standard",
            Adjacency::NoTouch => "no-touch",
        }
    }

    /// A rule set by name: `standard` or `no-touch` (ignoring ASCII case and surrounding
    /// whitespace).
    ///
    /// # Errors
    /// [`Error::Rules`] for another name.
    pub fn by_name(name: &str) -> Result<Rules, Error> {
        match name.trim().to_ascii_lowercase().as_str() {
            "standard" => Ok(Rules::standard()),
            "no-touch" => Ok(Rules::no_touch()),
            _ => Err(Error::Rules(format!(
                "unknown rule set `{name}` (expected standard or no-touch)"
            ))),
        }
    }

    /// The number of cells (saturating: a board too large to count is refused by
    /// [`Rules::validate`] all the same).
    pub fn cells(&self) -> usize {
        self.width.saturating_mul(self.height)
    }

    /// Checks the rules: a board of 1 to [`MAX_CELLS`] cells, 1 to [`MAX_SHIPS`] ships with
    /// distinct non-empty names and lengths that fit on the board, a salvo of one shot up to
    /// one per cell, and ships whose cells add up to no more than the board's (under no-touch,
    /// with a margin: see the errors). Whether the fleet can really be placed is
    /// [`Geometry::new`]'s question.
    ///
    /// # Errors
    /// [`Error::Rules`] describing the first problem found; [`Error::FleetDoesNotFit`] when
    /// a ship is longer than both sides of the board, the ships have more cells than the
    /// board, or under no-touch when the ships, each with
    /// the cells right of and below it, have more cells than a board one wider and one
    /// higher (no two such blocks can overlap, so no placement exists).
    pub fn validate(&self) -> Result<(), Error> {
        if self.width == 0 || self.height == 0 {
            return Err(Error::Rules(format!(
                "board {}x{} is empty",
                self.width, self.height
            )));
        }
        if self.cells() > MAX_CELLS {
            // `cells` saturates: a product past usize is named as such, not as usize::MAX.
            let cells = match self.width.checked_mul(self.height) {
                Some(n) => format!("{n} cells"),
                None => "more cells than a usize counts".to_string(),
            };
            return Err(Error::Rules(format!(
                "board {}x{} has {cells}: at most {MAX_CELLS} are supported",
                self.width, self.height,
            )));
        }
        if self.fleet.is_empty() || self.fleet.len() > MAX_SHIPS {
            return Err(Error::Rules(format!(
                "a fleet has 1 to {MAX_SHIPS} ships, not {}",
                self.fleet.len()
            )));
        }
        for (i, s) in self.fleet.iter().enumerate() {
            if s.name.trim().is_empty() {
                return Err(Error::Rules(format!("ship {i} has no name")));
            }
            // Names that differ only in surrounding spaces read alike in every message.
            if self.fleet[..i]
                .iter()
                .any(|t| t.name.trim() == s.name.trim())
            {
                return Err(Error::Rules(format!(
                    "two ships are named `{}`",
                    s.name.trim()
                )));
            }
            if s.length == 0 {
                return Err(Error::Rules(format!(
                    "{} has length 0: a ship covers at least one cell",
                    s.name
                )));
            }
            if s.length > self.width.max(self.height) {
                return Err(Error::FleetDoesNotFit(format!(
                    "{} of length {} does not fit on a {}x{} board",
                    s.name, s.length, self.width, self.height
                )));
            }
        }
        if self.salvo == 0 || self.salvo > self.cells() {
            return Err(Error::Rules(format!(
                "a salvo has 1 to {} shots (one per cell of the board), not {}",
                self.cells(),
                self.salvo
            )));
        }
        let total: usize = self.fleet.iter().map(|s| s.length).sum();
        if total > self.cells() {
            return Err(Error::FleetDoesNotFit(format!(
                "{total} ship cells on {} cells",
                self.cells()
            )));
        }
        // Under no-touch, a ship of length `l` with the cells right of and below it (a
        // (l + 1) x 2 block) meets no other ship's block, and all lie on a board one wider
        // and one higher: the blocks must fit there.
        let blocks: usize = self.fleet.iter().map(|s| 2 * (s.length + 1)).sum();
        let room = (self.width + 1) * (self.height + 1);
        if self.adjacency == Adjacency::NoTouch && blocks > room {
            return Err(Error::FleetDoesNotFit(format!(
                "under no-touch each ship of length l needs a block of 2 x (l + 1) cells on a \
                 board one wider and one higher ({}x{}, {room} cells), and this fleet's blocks \
                 take {blocks}",
                self.width + 1,
                self.height + 1
            )));
        }
        Ok(())
    }
}

/// Everything derived from the rules once: cell masks, the 8-neighbourhood halos and each
/// ship's placement families (shared by every game and position of the same rules).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    rules: Rules,
    /// Per ship: its families (horizontal, then vertical unless its length is 1).
    families: Vec<Vec<Family>>,
    /// The cells and their 8 neighbours, per cell.
    halo: Vec<u128>,
    /// Whether exact counts search every labelled fleet (see [`Geometry::empty_problem`]).
    labelled_search: bool,
    /// Whether the check of [`Geometry::new`] placed the fleet (and so proved that it fits).
    /// Part of the derived equality, harmlessly: the check's generator has a fixed seed, so
    /// the same rules always give the same answer.
    placed: bool,
    /// The exact count of the empty board by frontiers, made by the first draw that needs
    /// it ([`Geometry::frontier_count`]).
    frontier: FrontierCache,
}

/// A [`Geometry`]'s frontier count of the empty board, made at most once and shared by the
/// draws of every game of the same rules. It depends on the rules alone, so two geometries
/// are equal whether or not either has made it yet.
#[derive(Debug, Clone, Default)]
struct FrontierCache(OnceLock<Result<csp_core::FrontierCount, Error>>);

impl PartialEq for FrontierCache {
    fn eq(&self, _: &FrontierCache) -> bool {
        true
    }
}

impl Eq for FrontierCache {}

/// The most states the frontier count of a random fleet's draw may make, once per set of
/// rules: some 80 bytes each once counted, and up to twice that while the table grows, so
/// up to about 800 MB at the limit. The standard fleet needs about 1.8 million under either
/// adjacency rule, ten 4-ships kept apart on 10x10 under 900,000.
pub(crate) const FRONTIER_DRAW_STATES: u64 = 4_000_000;

impl Geometry {
    /// Validates `rules` and precomputes the geometry.
    ///
    /// # Errors
    /// As [`Rules::validate`], and [`Error::FleetDoesNotFit`] when a search for one fleet
    /// proves that none can be placed. The search has a budget (2,000,000 nodes): a fleet it
    /// can neither place nor rule out within it (many ships of one length crowded under
    /// no-touch, say) is accepted; drawing one ([`crate::Fleet::random`]) may then fail with
    /// [`Error::DrawFailed`], or [`Error::FleetDoesNotFit`] when its exact count finds none.
    pub fn new(rules: &Rules) -> Result<Arc<Geometry>, Error> {
        rules.validate()?;
        let grid = csp_core::Grid::new(rules.width, rules.height)?;
        let halo: Vec<u128> = (0..grid.cells()).map(|c| grid.neighbourhood(c)).collect();
        let mut by_length: Vec<(usize, Vec<Family>)> = Vec::new();
        let mut families = Vec::with_capacity(rules.fleet.len());
        for s in &rules.fleet {
            if let Some((_, f)) = by_length.iter().find(|(l, _)| *l == s.length) {
                families.push(f.clone());
                continue;
            }
            let mut fams = Vec::new();
            for vertical in [false, true] {
                if vertical && s.length == 1 {
                    break;
                }
                // An orientation longer than the board has no placement.
                let shape: Vec<(usize, usize)> = (0..s.length)
                    .map(|i| if vertical { (0, i) } else { (i, 0) })
                    .collect();
                let f = if rules.adjacency == Adjacency::NoTouch {
                    grid.translates_no_touch(&shape)?
                } else {
                    grid.translates(&shape)?
                };
                fams.push(f);
            }
            by_length.push((s.length, fams.clone()));
            families.push(fams);
        }
        // Ships of one length are interchangeable to the exact count, which then branches on
        // one of them for all. With at most two of any length (the standard fleet), the
        // labelled search is kept: it costs at most twice the nodes, and it is the search the
        // shooters' budgets were set with and their results in docs/ were measured with
        // (which positions fit the budget decides which are counted exactly, and so the
        // games). With three or more, the labelled search would cost six times or more.
        let most_alike = families
            .iter()
            .map(|f| families.iter().filter(|g| *g == f).count())
            .max()
            .unwrap_or(0);
        let mut geo = Geometry {
            rules: rules.clone(),
            families,
            halo,
            labelled_search: most_alike <= 2,
            placed: false,
            frontier: FrontierCache::default(),
        };
        // Can the fleet be placed at all?
        let csp = geo.empty_problem()?;
        let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(0);
        match csp_core::PlacementChain::new(
            &csp,
            &csp_core::Budget {
                max_nodes: 2_000_000,
            },
            &mut rng,
        ) {
            Ok(_) => geo.placed = true,
            Err(csp_core::CspError::BudgetExceeded { .. }) => {}
            Err(csp_core::CspError::Inconsistent) => {
                return Err(Error::FleetDoesNotFit(format!(
                    "no placement of the fleet exists on {}x{} under {}",
                    rules.width,
                    rules.height,
                    match rules.adjacency {
                        Adjacency::Allowed => "the standard rule",
                        Adjacency::NoTouch => "the no-touch rule",
                    }
                )));
            }
            Err(e) => return Err(e.into()),
        }
        Ok(Arc::new(geo))
    }

    /// Whether [`Geometry::new`] placed the fleet once, which proves that it fits: `false`
    /// when its search ran out of nodes first (the fleet may still fit).
    pub(crate) fn placed(&self) -> bool {
        self.placed
    }

    /// The exact count of the empty board by frontiers ([`csp_core::FrontierCount`], within
    /// [`FRONTIER_DRAW_STATES`] states), made the first time it is asked for: the draw of a
    /// fleet too tight for rejection draws samples from it.
    pub(crate) fn frontier_count(&self) -> &Result<csp_core::FrontierCount, Error> {
        self.frontier.0.get_or_init(|| {
            let budget = csp_core::Budget {
                max_nodes: FRONTIER_DRAW_STATES,
            };
            Ok(csp_core::FrontierCount::new(
                &self.empty_problem()?,
                &budget,
            )?)
        })
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The placement families of ship `i`.
    pub fn families(&self, ship: usize) -> &[Family] {
        self.families.get(ship).map_or(&[], Vec::as_slice)
    }

    /// Every placement of ship `ship`, as the mask of its cells.
    pub(crate) fn placements(&self, ship: usize) -> impl Iterator<Item = u128> + '_ {
        self.families(ship)
            .iter()
            .flat_map(|f| cells_of(f.starts()).map(move |s| f.cells(s as u32)))
    }

    /// A cell and its (up to 8) neighbours.
    pub fn halo(&self, cell: usize) -> u128 {
        self.halo.get(cell).copied().unwrap_or(0)
    }

    /// The cells of `mask` and their neighbours: what a ship there keeps others off under
    /// no-touch.
    pub(crate) fn halo_of(&self, mask: u128) -> u128 {
        cells_of(mask).fold(0, |h, c| h | self.halo(c))
    }

    /// The mask of every cell.
    pub fn all_cells(&self) -> u128 {
        if self.rules.cells() == MAX_CELLS {
            u128::MAX
        } else {
            (1u128 << self.rules.cells()) - 1
        }
    }

    /// The placement problem of the empty board: one variable per ship.
    ///
    /// # Errors
    /// Only on internal inconsistencies (reported, never panics).
    pub fn empty_problem(&self) -> Result<csp_core::PlacementCsp, Error> {
        let mut p = csp_core::PlacementCsp::new(self.rules.cells())?;
        for f in &self.families {
            p.add_var(f.clone())?;
        }
        p.set_labelled_search(self.labelled_search);
        Ok(p)
    }

    /// The cells of ship `i` placed at column `x`, row `y`, growing along `dir`; `None` when
    /// it leaves the board.
    pub fn ship_cells(&self, ship: usize, x: usize, y: usize, vertical: bool) -> Option<u128> {
        let len = self.rules.fleet.get(ship)?.length;
        let (w, h) = (self.rules.width, self.rules.height);
        // Subtractions, not sums: coordinates come from files and may be huge.
        let fits = x < w && y < h && if vertical { len <= h - y } else { len <= w - x };
        fits.then(|| {
            (0..len).fold(0u128, |a, i| {
                a | 1u128
                    << if vertical {
                        (y + i) * w + x
                    } else {
                        y * w + x + i
                    }
            })
        })
    }
}

/// The mask of `cell`: 0 for a cell past the 128 a mask holds (off any board, so a shot
/// there is a certain miss).
pub(crate) fn cell_bit(cell: usize) -> u128 {
    if cell < 128 { 1u128 << cell } else { 0 }
}

/// The cell indices of a mask, lowest first.
pub fn cells_of(mut m: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(b)
        }
    })
}
