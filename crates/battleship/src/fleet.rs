//! Fleets: where each ship lies, validation against the rules, exactly uniform random fleets,
//! and the JSON-lines fleet file format.

use std::fmt::Write as _;

use rand::{Rng, RngExt};

use crate::Error;
use crate::json::{self, Json, Whole};
use crate::rules::{FRONTIER_DRAW_STATES, Geometry};

/// How many rejection draws [`Fleet::random`] makes before it counts the fleets exactly.
/// Far more than a fleet that fits easily needs (the standard fleet needs a few).
pub(crate) const REJECTION_DRAWS: u32 = 10_000_000;

/// The node budget of each count of [`Fleet::random`]'s exact draw.
const EXACT_DRAW_NODES: u64 = 20_000_000;

/// The error of a fleet that an exact count proved cannot fit.
fn no_fleet_fits() -> Error {
    Error::FleetDoesNotFit("no fleet of these rules fits the board (counted exactly)".into())
}

/// Which way a ship grows from its first cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Along the row (growing x).
    Horizontal,
    /// Along the column (growing y).
    Vertical,
}

/// Where one ship lies: its first (top-left) cell and direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShipPlacement {
    /// Column of the first cell (zero-based).
    pub x: usize,
    /// Row of the first cell (zero-based).
    pub y: usize,
    /// Direction.
    pub dir: Dir,
}

/// A valid fleet: one placement per ship of the rules, in the rules' ship order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fleet {
    placements: Vec<ShipPlacement>,
    cells: Vec<u128>,
}

/// "1 ship", "2 ships", ...
fn ship_count(n: usize) -> String {
    format!("{n} ship{}", if n == 1 { "" } else { "s" })
}

/// Refuses `given` ships for a fleet of another number.
fn check_ship_count(geo: &Geometry, given: usize) -> Result<(), Error> {
    let fleet = geo.rules().fleet.len();
    if given == fleet {
        Ok(())
    } else {
        Err(Error::InvalidFleet(format!(
            "{} given, the fleet has {fleet}",
            ship_count(given)
        )))
    }
}

impl Fleet {
    /// Builds and validates a fleet: ship `i` at `placements[i]`.
    ///
    /// # Errors
    /// [`Error::InvalidFleet`]: wrong number of ships, a ship out of bounds, two ships
    /// overlapping, or touching under the no-touch rule.
    pub fn new(geo: &Geometry, placements: Vec<ShipPlacement>) -> Result<Fleet, Error> {
        let rules = geo.rules();
        check_ship_count(geo, placements.len())?;
        let mut cells = Vec::with_capacity(placements.len());
        for (i, p) in placements.iter().enumerate() {
            let name = &rules.fleet[i].name;
            let c = geo
                .ship_cells(i, p.x, p.y, p.dir == Dir::Vertical)
                .ok_or_else(|| {
                    Error::InvalidFleet(format!(
                        "{name} at {},{} ({}) leaves the {}x{} board",
                        p.x,
                        p.y,
                        if p.dir == Dir::Vertical { "v" } else { "h" },
                        rules.width,
                        rules.height
                    ))
                })?;
            for (j, &d) in cells.iter().enumerate() {
                let other = &rules.fleet[j].name;
                if c & d != 0 {
                    return Err(Error::InvalidFleet(format!("{name} overlaps {other}")));
                }
                if rules.adjacency == crate::Adjacency::NoTouch && geo.halo_of(c) & d != 0 {
                    return Err(Error::InvalidFleet(format!(
                        "{name} touches {other} (not allowed under no-touch)"
                    )));
                }
            }
            cells.push(c);
        }
        Ok(Fleet { placements, cells })
    }

    /// An exactly uniform random fleet among all valid labelled fleets.
    ///
    /// Every ship is placed uniformly among all its placements on the empty board, and the
    /// whole draw restarts as soon as a ship conflicts with an earlier one (rejection
    /// sampling: the accepted fleets are uniform because every fleet is proposed with the
    /// same probability). A fleet that fits so tightly that ten million draws are all
    /// rejected is drawn instead from an exact count of the empty board: first csp-core's
    /// [`FrontierCount`](csp_core::FrontierCount), made once per [`Geometry`] and shared by
    /// its later draws (within 4,000,000 states, about 0.2 s for ten 4-ships kept apart on
    /// 10x10, whose 1,558,584,115,200 labelled fleets no search could visit), then, if that
    /// runs out of states, csp-core's [`sample_placements`](csp_core::sample_placements)
    /// (within 20,000,000 search nodes a count), which can succeed where few fleets fit.
    /// Each way gives a uniform fleet, so the whole does too.
    ///
    /// # Errors
    /// [`Error::FleetDoesNotFit`] when an exact count finds no fleet at all, and
    /// [`Error::DrawFailed`] when the draws are all rejected and both counts are over budget
    /// or past their `u128` counters (even counting each set of placements of ships of one
    /// length once, as both do: thirty-two 4-ships tiling 8x16 are drawn that way).
    /// A fleet that cannot fit may also end in `DrawFailed`, where proving that it cannot
    /// takes more than the counts' budgets.
    pub fn random(geo: &Geometry, rng: &mut (impl Rng + ?Sized)) -> Result<Fleet, Error> {
        Self::random_within(geo, rng, REJECTION_DRAWS, &mut 0)
    }

    /// As [`Fleet::random`] with at most `rejections` rejection draws (the default is
    /// [`REJECTION_DRAWS`]), adding to `draws` the draws it made: a measure of the work that
    /// depends only on the generator.
    pub(crate) fn random_within(
        geo: &Geometry,
        rng: &mut (impl Rng + ?Sized),
        rejections: u32,
        draws: &mut u64,
    ) -> Result<Fleet, Error> {
        Self::random_drawn(geo, rng, rejections, true, draws)
    }

    /// As [`Fleet::random_within`], drawing from the frontier count or (with `frontier`
    /// false, as when it runs out of states) going straight to the draw by search.
    fn random_drawn(
        geo: &Geometry,
        rng: &mut (impl Rng + ?Sized),
        rejections: u32,
        frontier: bool,
        draws: &mut u64,
    ) -> Result<Fleet, Error> {
        if let Some(fleet) = Self::rejection_draws(geo, rng, rejections, draws)? {
            return Ok(fleet);
        }
        if frontier {
            match geo.frontier_count() {
                Ok(count) if count.unlabelled() == 0 => return Err(no_fleet_fits()),
                Ok(count) => return Self::from_starts(geo, &count.sample(rng)?),
                Err(Error::Csp(
                    csp_core::CspError::BudgetExceeded { .. } | csp_core::CspError::CountOverflow,
                )) => {}
                Err(e) => return Err(e.clone()),
            }
        }
        let budget = csp_core::Budget {
            max_nodes: EXACT_DRAW_NODES,
        };
        match csp_core::sample_placements(&geo.empty_problem()?, &budget, rng) {
            Ok(values) => Self::from_starts(geo, &values),
            Err(csp_core::CspError::Inconsistent) => Err(no_fleet_fits()),
            Err(csp_core::CspError::BudgetExceeded { .. }) => Err(Error::DrawFailed(format!(
                "ten million random draws were all rejected, and the fleets are too many to \
                 count within {FRONTIER_DRAW_STATES} states by frontiers or \
                 {EXACT_DRAW_NODES} search nodes: the fleet {}",
                if geo.placed() {
                    "fits (one placement was found), but too tightly to be drawn uniformly"
                } else {
                    "fits too tightly to be drawn, if it fits at all"
                }
            ))),
            Err(csp_core::CspError::CountOverflow) => Err(Error::DrawFailed(
                "ten million random draws were all rejected, and the number of labelled \
                 fleets is past the exact count's u128 counters: the fleet fits too tightly \
                 to be drawn"
                    .into(),
            )),
            Err(e) => Err(e.into()),
        }
    }

    /// Up to `most` rejection draws, counted in `draws`: the first fleet none of whose ships
    /// conflict.
    fn rejection_draws(
        geo: &Geometry,
        rng: &mut (impl Rng + ?Sized),
        most: u32,
        draws: &mut u64,
    ) -> Result<Option<Fleet>, Error> {
        let n = geo.rules().fleet.len();
        let mut placed: Vec<(u128, u128)> = Vec::with_capacity(n);
        let mut starts = Vec::with_capacity(n);
        'draw: for _ in 0..most {
            *draws += 1;
            placed.clear();
            starts.clear();
            for ship in 0..n {
                let fams = geo.families(ship);
                let total: u32 = fams.iter().map(csp_core::Family::len).sum();
                if total == 0 {
                    break 'draw;
                }
                let mut r = rng.random_range(0..total);
                let mut pick = None;
                for (fi, f) in fams.iter().enumerate() {
                    if r < f.len() {
                        let mut m = f.starts();
                        for _ in 0..r {
                            m &= m - 1;
                        }
                        pick = Some((fi, m.trailing_zeros()));
                        break;
                    }
                    r -= f.len();
                }
                let Some((fi, s)) = pick else { break 'draw };
                let f = &fams[fi];
                let (c, b) = (f.cells(s), f.block(s));
                if placed.iter().any(|&(pc, pb)| pc & b != 0 || c & pb != 0) {
                    continue 'draw;
                }
                placed.push((c, b));
                starts.push(csp_core::Value {
                    family: fi,
                    start: s,
                });
            }
            return Self::from_starts(geo, &starts).map(Some);
        }
        Ok(None)
    }

    /// The fleet whose ship `i` lies at start `starts[i].start` of the geometry's family
    /// `starts[i].family` (0 horizontal, 1 vertical), as the draws and counts give them.
    fn from_starts(geo: &Geometry, starts: &[csp_core::Value]) -> Result<Fleet, Error> {
        let w = geo.rules().width;
        let placements = starts
            .iter()
            .map(|v| ShipPlacement {
                x: v.start as usize % w,
                y: v.start as usize / w,
                dir: if v.family == 0 {
                    Dir::Horizontal
                } else {
                    Dir::Vertical
                },
            })
            .collect();
        Fleet::new(geo, placements)
    }

    /// The fleet whose ship `i` covers the cells of `cells[i]` (bit `y * width + x`), as
    /// the posterior ([`crate::infer::Posterior`]), [`crate::infer::consistent_fleets`] and
    /// [`crate::optimal`] give fleets: for example, to play a game against a fleet drawn
    /// from a posterior.
    ///
    /// ```
    /// use battleship::{Fleet, Geometry, Rules};
    ///
    /// let geo = Geometry::new(&Rules::with_lengths(4, 4, &[3, 2]))?;
    /// // A 3-ship along the top row from the corner, a 2-ship down the last column.
    /// let fleet = Fleet::from_cells(&geo, &[0b111, 1 << 7 | 1 << 11])?;
    /// assert_eq!((fleet.cells(0), fleet.cells(1)), (0b111, 1 << 7 | 1 << 11));
    /// assert!(Fleet::from_cells(&geo, &[0b1011, 0b1100000]).is_err());
    /// # Ok::<(), battleship::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidFleet`] for a count of masks that is not the fleet's, a mask that is
    /// not a straight line of its ship's length on the board, and as [`Fleet::new`] for
    /// ships that overlap, or touch under no-touch.
    pub fn from_cells(geo: &Geometry, cells: &[u128]) -> Result<Fleet, Error> {
        let rules = geo.rules();
        check_ship_count(geo, cells.len())?;
        let w = rules.width;
        let mut placements = Vec::with_capacity(cells.len());
        for (i, &c) in cells.iter().enumerate() {
            let first = c.trailing_zeros() as usize;
            let (x, y) = (first % w, first / w);
            let fits = |vertical| geo.ship_cells(i, x, y, vertical) == Some(c);
            let dir = if c != 0 && fits(false) {
                Dir::Horizontal
            } else if c != 0 && fits(true) {
                Dir::Vertical
            } else {
                let name = &rules.fleet[i].name;
                return Err(Error::InvalidFleet(format!(
                    "{name}'s cells {c:#x} are not a straight line of its length on the {w}x{} board",
                    rules.height
                )));
            };
            placements.push(ShipPlacement { x, y, dir });
        }
        Fleet::new(geo, placements)
    }

    /// The placements, in the rules' ship order.
    pub fn placements(&self) -> &[ShipPlacement] {
        &self.placements
    }

    /// Checks that the fleet is one of `geo`'s: as [`Fleet::new`] would build it for those
    /// rules (the same ships, on the board, not overlapping, not touching under no-touch).
    /// A fleet built for other rules would play a wrong game: a missing ship counts as
    /// sunk from the start, an extra one never sinks.
    ///
    /// ```
    /// use battleship::{Dir, Fleet, Geometry, Rules, ShipPlacement};
    /// let one = Geometry::new(&Rules::with_lengths(10, 10, &[2]))?;
    /// let at = |x| ShipPlacement { x, y: 0, dir: Dir::Horizontal };
    /// let fleet = Fleet::new(&one, vec![at(0)])?;
    /// assert!(fleet.check(&one).is_ok());
    /// let standard = Geometry::new(&Rules::standard())?;
    /// assert!(fleet.check(&standard).is_err());
    /// # Ok::<(), battleship::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidFleet`] saying what differs.
    pub fn check(&self, geo: &Geometry) -> Result<(), Error> {
        let rebuilt = Fleet::new(geo, self.placements.clone())?;
        let Some(i) = (0..self.cells.len()).find(|&i| rebuilt.cells[i] != self.cells[i]) else {
            return Ok(());
        };
        let name = &geo.rules().fleet[i].name;
        let (theirs, ours) = (rebuilt.cells[i].count_ones(), self.cells[i].count_ones());
        Err(Error::InvalidFleet(if theirs == ours {
            format!(
                "ship {} lies on other cells than the rules' {name} would (a fleet for a \
                 board of another width?)",
                i + 1
            )
        } else {
            format!(
                "ship {} is not the rules' {name} ({theirs} cells, not {ours})",
                i + 1
            )
        }))
    }

    /// The cells of ship `i` (empty for a ship that does not exist).
    pub fn cells(&self, ship: usize) -> u128 {
        self.cells.get(ship).copied().unwrap_or(0)
    }

    /// All ship cells.
    pub fn all_cells(&self) -> u128 {
        self.cells.iter().fold(0, |a, c| a | c)
    }

    /// The fleet as one JSON line (without the newline):
    /// `{"width":10,"height":10,"ships":[{"length":5,"x":0,"y":0,"dir":"h"},...]}`.
    pub fn to_json(&self, geo: &Geometry) -> String {
        let r = geo.rules();
        let mut s = format!(
            "{{\"width\":{},\"height\":{},\"ships\":[",
            r.width, r.height
        );
        for (i, p) in self.placements.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(
                s,
                "{{\"length\":{},\"x\":{},\"y\":{},\"dir\":\"{}\"}}",
                // The ship's own length (a fleet read for other rules has other ships).
                self.cells(i).count_ones(),
                p.x,
                p.y,
                if p.dir == Dir::Vertical { "v" } else { "h" }
            );
        }
        s.push_str("]}");
        s
    }
}

fn field_usize(obj: &Json, key: &str, what: &str) -> Result<usize, String> {
    let too_large = || format!("{what}: `{key}` is too large");
    let negative = |n: &dyn std::fmt::Display| {
        format!("{what}: `{key}` is {n}, expected a whole number, 0 or more")
    };
    match obj.get(key) {
        None => Err(format!("{what}: missing field `{key}`")),
        Some(Json::Int(n)) if *n >= 0 => usize::try_from(*n).map_err(|_| too_large()),
        Some(Json::Int(n)) => Err(negative(n)),
        // Writers that keep every number as a float write `3.0` or `3e0` for 3; whether a
        // number is whole is read from its text, so no rounding makes one of `3.0000000000000001`.
        Some(Json::Num(text)) => match json::whole(text) {
            Whole::Exact(n) if n >= 0 => usize::try_from(n).map_err(|_| too_large()),
            Whole::Huge if !text.starts_with('-') => Err(too_large()),
            _ => Err(negative(text)),
        },
        Some(v) => Err(format!(
            "{what}: `{key}` is {}, expected an integer",
            v.kind()
        )),
    }
}

/// Reads one fleet from a JSON line (see [`Fleet::to_json`]). The ships may come in any order:
/// each is matched to the first ship of the rules with its length that is still free. Other
/// fields are ignored and may hold any JSON value (nested up to 32 deep); the numbers read
/// may be written as whole floats (`10.0`, `1e1`), whole or not being read from their text.
/// The JSON is read strictly (no leading zeros, no raw control characters in strings), and a
/// key given twice in one object is refused.
///
/// # Errors
/// [`Error::Parse`] (with line 1) for malformed JSON or fields, [`Error::FleetLine`] (with
/// line 1, holding an [`Error::InvalidFleet`]) for a fleet the rules do not allow.
pub fn read_fleet(geo: &Geometry, line: &str) -> Result<Fleet, Error> {
    read_fleet_at(geo, line, 1)
}

fn read_fleet_at(geo: &Geometry, line: &str, lineno: usize) -> Result<Fleet, Error> {
    let perr = |message: String| Error::Parse {
        line: lineno,
        message,
    };
    let at_line = |e: Error| Error::FleetLine {
        line: lineno,
        error: Box::new(e),
    };
    // A byte-order mark before the first line, as `read_fleets` skips it.
    let line = if lineno == 1 {
        line.strip_prefix('\u{feff}').unwrap_or(line)
    } else {
        line
    };
    let v = json::parse(line).map_err(|e| perr(e.to_string()))?;
    if !matches!(v, Json::Obj(_)) {
        return Err(perr(format!("expected an object, found {}", v.kind())));
    }
    let r = geo.rules();
    let (w, h) = (
        field_usize(&v, "width", "fleet").map_err(perr)?,
        field_usize(&v, "height", "fleet").map_err(perr)?,
    );
    if (w, h) != (r.width, r.height) {
        return Err(perr(format!(
            "the board is {w}x{h}, the rules say {}x{}",
            r.width, r.height
        )));
    }
    let ships = match v.get("ships") {
        Some(Json::Arr(ships)) => ships,
        Some(other) => {
            return Err(perr(format!(
                "`ships` is {}, expected an array",
                other.kind()
            )));
        }
        None => return Err(perr("missing array `ships`".into())),
    };
    let mut slots: Vec<Option<ShipPlacement>> = vec![None; r.fleet.len()];
    for (k, s) in ships.iter().enumerate() {
        let what = format!("ship {}", k + 1);
        if !matches!(s, Json::Obj(_)) {
            return Err(perr(format!("{what} is {}, expected an object", s.kind())));
        }
        let len = field_usize(s, "length", &what).map_err(perr)?;
        let x = field_usize(s, "x", &what).map_err(perr)?;
        let y = field_usize(s, "y", &what).map_err(perr)?;
        let dir = match s.get("dir") {
            Some(Json::Str(d)) if d == "h" => Dir::Horizontal,
            Some(Json::Str(d)) if d == "v" => Dir::Vertical,
            Some(Json::Str(d)) => {
                return Err(perr(format!("{what}: dir `{d}` is not \"h\" or \"v\"")));
            }
            Some(other) => {
                return Err(perr(format!(
                    "{what}: `dir` is {}, expected \"h\" or \"v\"",
                    other.kind()
                )));
            }
            None => return Err(perr(format!("{what}: missing string field `dir`"))),
        };
        let Some(i) = (0..r.fleet.len()).find(|&i| r.fleet[i].length == len && slots[i].is_none())
        else {
            return Err(at_line(Error::InvalidFleet(format!(
                "{what} of length {len} is not in the fleet (or is one too many)"
            ))));
        };
        slots[i] = Some(ShipPlacement { x, y, dir });
    }
    let placements: Option<Vec<ShipPlacement>> = slots.into_iter().collect();
    let Some(placements) = placements else {
        return Err(at_line(Error::InvalidFleet(format!(
            "{} given, the fleet has {}",
            ship_count(ships.len()),
            r.fleet.len()
        ))));
    };
    Fleet::new(geo, placements).map_err(|e| match e {
        e @ Error::InvalidFleet(_) => at_line(e),
        e => e,
    })
}

/// Reads a JSON-lines fleet file (blank lines are skipped, and so is a UTF-8 byte-order mark
/// at the start).
///
/// # Errors
/// As [`read_fleet`], with the line number.
pub fn read_fleets(geo: &Geometry, text: &str) -> Result<Vec<Fleet>, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| read_fleet_at(geo, l, i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::{Adjacency, Rules};

    /// Every valid fleet of `geo`, by trying every position and direction of every ship.
    fn every_fleet(geo: &Geometry) -> Vec<Fleet> {
        let r = geo.rules();
        let each: Vec<ShipPlacement> = (0..r.width * r.height)
            .flat_map(|c| {
                [Dir::Horizontal, Dir::Vertical].map(|dir| ShipPlacement {
                    x: c % r.width,
                    y: c / r.width,
                    dir,
                })
            })
            .collect();
        let mut all = vec![Vec::new()];
        for _ in &r.fleet {
            all = all
                .into_iter()
                .flat_map(|p: Vec<ShipPlacement>| {
                    each.iter().map(move |&s| {
                        let mut p = p.clone();
                        p.push(s);
                        p
                    })
                })
                .collect();
        }
        let mut fleets: Vec<Fleet> = all
            .into_iter()
            .filter_map(|p| Fleet::new(geo, p).ok())
            .collect();
        // A one-cell ship lies the same either way.
        fleets.sort_by_key(|f| f.cells.clone());
        fleets.dedup_by_key(|f| f.cells.clone());
        fleets
    }

    /// Thirty-two 4-ships tile 8x16 in too many labelled ways for the count's counters
    /// (each tiling is `32!` labelled fleets); the exact draw counts the tilings without the
    /// labels instead, and the fleet is drawn.
    #[test]
    fn a_count_past_the_counters_is_still_drawn() {
        let geo = Geometry::new(&Rules::with_lengths(8, 16, &[4; 32])).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let fleet = Fleet::random_within(&geo, &mut rng, 10, &mut 0).unwrap();
        assert_eq!(fleet.all_cells(), u128::MAX);
    }

    /// A fleet given as its first line keeps working after a byte-order mark.
    #[test]
    fn a_byte_order_mark_before_a_fleet_is_skipped() {
        let geo = Geometry::new(&Rules::with_lengths(4, 4, &[2])).unwrap();
        let line = r#"{"width":4,"height":4,"ships":[{"length":2,"x":0,"y":0,"dir":"h"}]}"#;
        let plain = read_fleet(&geo, line).unwrap();
        assert_eq!(read_fleet(&geo, &format!("\u{feff}{line}")).unwrap(), plain);
    }

    /// Both draws by exact counting, which a fleet too crowded for rejection draws gets
    /// (from the frontier count, or by search when that runs out of states), are uniform
    /// over the labelled fleets (ships of one length told apart), under both adjacency
    /// rules, with two ships of one length (counted labelled by the search) and with three
    /// (counted with the interchangeable ships grouped).
    #[test]
    fn the_exact_draws_are_uniform() {
        for (lengths, frontier) in [
            ([2, 1, 1], true),
            ([1, 1, 1], true),
            ([2, 1, 1], false),
            ([1, 1, 1], false),
        ] {
            for no_touch in [false, true] {
                let mut r = Rules::with_lengths(3, 3, &lengths);
                if no_touch {
                    r.adjacency = Adjacency::NoTouch;
                }
                let geo = Geometry::new(&r).unwrap();
                let all = every_fleet(&geo);
                assert!(all.len() > 5, "{}", all.len());
                let per_fleet = 60;
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
                let mut seen: HashMap<Vec<u128>, usize> = HashMap::new();
                for _ in 0..per_fleet * all.len() {
                    let mut draws = 0;
                    let f = Fleet::random_drawn(&geo, &mut rng, 0, frontier, &mut draws).unwrap();
                    assert_eq!(draws, 0);
                    *seen.entry(f.cells.clone()).or_default() += 1;
                }
                let case = format!("{lengths:?}, no_touch {no_touch}, frontier {frontier}");
                assert_eq!(seen.len(), all.len(), "{case}");
                // Pearson's statistic against the uniform distribution: mean k - 1 and
                // standard deviation sqrt(2 (k - 1)) for k fleets; five of them above.
                let expected = per_fleet as f64;
                let chi2: f64 = all
                    .iter()
                    .map(|f| (seen[&f.cells] as f64 - expected).powi(2) / expected)
                    .sum();
                let df = (all.len() - 1) as f64;
                assert!(
                    chi2 < df + 5.0 * (2.0 * df).sqrt(),
                    "{case}: {chi2} for {df}"
                );
            }
        }
    }

    #[test]
    fn a_fleet_comes_back_from_its_cells() {
        let geo = Geometry::new(&Rules::standard()).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for _ in 0..50 {
            let f = Fleet::random(&geo, &mut rng).unwrap();
            assert_eq!(Fleet::from_cells(&geo, &f.cells).unwrap(), f);
        }
        let f = Fleet::random(&geo, &mut rng).unwrap();
        let mut cells = f.cells.clone();
        // Not a line, not its ship's length, empty, one ship too many or too few.
        for (i, bad) in [(0, 0b1011), (0, 0b1111), (4, 0), (4, 0b111)] {
            let mut c = cells.clone();
            c[i] = bad;
            let e = Fleet::from_cells(&geo, &c).unwrap_err().to_string();
            assert!(e.contains("not a straight line of its length"), "{e}");
        }
        cells.push(1 << 99);
        let e = Fleet::from_cells(&geo, &cells).unwrap_err().to_string();
        assert!(e.ends_with("6 ships given, the fleet has 5"), "{e}");
        cells.truncate(4);
        assert!(Fleet::from_cells(&geo, &cells).is_err());
    }
}
