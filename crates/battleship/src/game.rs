//! The game engine ([`Game`]) and the shooter's knowledge ([`View`]).

use std::sync::Arc;

use crate::Error;
use crate::fleet::Fleet;
use crate::rules::{Adjacency, Feedback, Geometry, cells_of};

/// What the defender answers to one shot, as the feedback rule allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shot {
    /// Water.
    Miss,
    /// A ship was hit (`ship` is named only under [`Feedback::HitNamesShip`]; under
    /// [`Feedback::Bare`] a sinking hit is also reported as a plain hit).
    Hit {
        /// The ship hit, when the rules name it.
        ship: Option<usize>,
    },
    /// The last intact cell of ship `ship` was hit.
    Sunk {
        /// The ship sunk.
        ship: usize,
        /// Its cells, under [`Feedback::SunkRevealsCells`].
        cells: Option<u128>,
    },
}

/// What is known about a sunk ship.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sunk {
    /// The cell whose hit sank it (one of its cells).
    pub at: usize,
    /// Every hit made up to and including that shot: the ship lies inside.
    pub hits_then: u128,
    /// Its cells, when revealed.
    pub cells: Option<u128>,
}

/// The shooter's knowledge: misses, hits and what the feedback said about them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    geo: Arc<Geometry>,
    misses: u128,
    hits: u128,
    /// Per ship: hits known to be on it (hit-names-ship, revealed sunk cells).
    named: Vec<u128>,
    sunk: Vec<Option<Sunk>>,
    /// Cells known to belong to some sunk ship without knowing which (text positions).
    sunk_cells: u128,
    /// Cells already chosen this salvo turn (results not known yet).
    pending: u128,
    shots: u32,
}

impl View {
    /// Nothing known yet.
    pub fn new(geo: Arc<Geometry>) -> View {
        let n = geo.rules().fleet.len();
        View {
            geo,
            misses: 0,
            hits: 0,
            named: vec![0; n],
            sunk: vec![None; n],
            sunk_cells: 0,
            pending: 0,
            shots: 0,
        }
    }

    /// Builds a view from masks (used by the text position format): `sunk_cells` are hit
    /// cells of sunk ships whose identities are unknown.
    ///
    /// # Errors
    /// [`Error::Shot`] when the masks overlap or leave the board.
    pub fn from_masks(
        geo: Arc<Geometry>,
        misses: u128,
        hits: u128,
        sunk_cells: u128,
    ) -> Result<View, Error> {
        let all = geo.all_cells();
        if (misses | hits | sunk_cells) & !all != 0
            || misses & hits != 0
            || misses & sunk_cells != 0
            || hits & sunk_cells != 0
        {
            return Err(Error::Shot(
                "the miss, hit and sunk cells overlap or leave the board".into(),
            ));
        }
        let mut v = View::new(geo);
        v.misses = misses;
        v.hits = hits;
        v.sunk_cells = sunk_cells;
        v.shots = (misses | hits | sunk_cells).count_ones();
        Ok(v)
    }

    /// The geometry (and rules).
    pub fn geometry(&self) -> &Arc<Geometry> {
        &self.geo
    }

    /// Missed cells.
    pub fn misses(&self) -> u128 {
        self.misses
    }

    /// Hit cells (not counting [`View::sunk_cells`]).
    pub fn hits(&self) -> u128 {
        self.hits
    }

    /// Cells known to belong to some sunk ship, which one unknown: the `s` cells of a text
    /// position ([`View::from_masks`]). Always 0 in a game's view, which records each
    /// sinking in [`View::sunk`] instead (the hits that sank a ship stay in
    /// [`View::hits`]), so a game's position written as text must mark a sunk ship's cells
    /// as `s` from what it knows of them, or the text claims those ships afloat.
    pub fn sunk_cells(&self) -> u128 {
        self.sunk_cells
    }

    /// Hits known to be on ship `i`.
    pub fn named(&self, ship: usize) -> u128 {
        self.named.get(ship).copied().unwrap_or(0)
    }

    /// What is known about each ship's sinking.
    pub fn sunk(&self) -> &[Option<Sunk>] {
        &self.sunk
    }

    /// Cells chosen earlier in the current salvo turn.
    pub fn pending(&self) -> u128 {
        self.pending
    }

    /// Shots fired so far.
    pub fn shots(&self) -> u32 {
        self.shots
    }

    /// Cells that may still be shot: not shot and not pending.
    pub fn unknown(&self) -> u128 {
        self.geo.all_cells() & !(self.misses | self.hits | self.sunk_cells | self.pending)
    }

    /// Marks `cell` as chosen in the current salvo turn.
    pub fn set_pending(&mut self, cell: usize) {
        if cell < self.geo.rules().cells() {
            self.pending |= 1u128 << cell;
        }
    }

    /// Hits not yet explained by a sunk ship whose cells are known, with the sunk ships'
    /// cells attributed heuristically when the rules do not reveal them: in the order the
    /// ships sank, a ship of length `L` sunk at `c` is given the first line of `L` hits through
    /// `c` (horizontal first), among the hits made by then, not already given to another
    /// ship. Where every hit names its ship, a sunk ship's cells are the hits that named it.
    /// Heuristic shooters use this; the exact posterior does not need it.
    pub fn unresolved_hits(&self) -> u128 {
        let rules = self.geo.rules();
        let mut resolved = 0u128;
        // The order of sinking: `record` makes every sinking a new hit, so the hits made by
        // then strictly grow from one sinking to the next.
        let mut order: Vec<(usize, &Sunk)> = self
            .sunk
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i, s.as_ref()?)))
            .collect();
        order.sort_by_key(|(_, s)| s.hits_then.count_ones());
        // Hits that named a ship (a ship's cells are its own, so the sets are disjoint).
        let named = self.named.iter().fold(0u128, |m, &n| m | n);
        for (i, s) in order {
            if let Some(c) = s.cells {
                resolved |= c;
                continue;
            }
            let len = rules.fleet[i].length;
            // Every cell of the ship named: nothing to guess.
            if self.named[i].count_ones() as usize == len {
                resolved |= self.named[i];
                continue;
            }
            let w = rules.width;
            // `at` is on the board, so every start found below is too.
            let (cx, cy) = (s.at % w, s.at / w);
            // Nor a hit that named another ship (where hits name ships but not all of them are
            // named, as in a view built by hand).
            let avail = s.hits_then & !resolved & !(named & !self.named[i]);
            let mut found = 0u128;
            'dirs: for vertical in [false, true] {
                for k in 0..len {
                    // The ship starts k cells before `at`.
                    let (x, y) = if vertical {
                        (Some(cx), cy.checked_sub(k))
                    } else {
                        (cx.checked_sub(k), Some(cy))
                    };
                    let (Some(x), Some(y)) = (x, y) else { continue };
                    if let Some(m) = self.geo.ship_cells(i, x, y, vertical)
                        && m & avail == m
                    {
                        found = m;
                        break 'dirs;
                    }
                }
            }
            resolved |= if found != 0 { found } else { 1u128 << s.at };
        }
        self.hits & !resolved
    }

    /// Ships not known to be sunk.
    pub fn afloat(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.sunk.len()).filter(|&i| self.sunk[i].is_none())
    }

    /// Records the answer to a shot at `cell`.
    ///
    /// The answer must be one the rules can give: a named hit only under
    /// [`Feedback::HitNamesShip`] and on a ship not yet sunk (a hit that names no ship is
    /// accepted under every rule: a position read from text does not say), a sinking only
    /// where sinkings are announced (not under [`Feedback::Bare`]), once per ship, and only
    /// where a line of the ship's length through `cell` is all hits (`cell` with the hits
    /// before it), revealed cells only under [`Feedback::SunkRevealsCells`], where a sinking
    /// must give them, and then a placement of that ship through `cell` on hit cells, clear
    /// of the ships revealed before it (and of their neighbours under no-touch). On an error
    /// the view is unchanged.
    ///
    /// These checks look at one answer at a time, against the cells shot before it. Answers
    /// that pass them may still be met by no fleet together (a sinking whose only line of
    /// hits runs through a hit that named another ship, or through the cells of a ship
    /// sunk before it): the posterior ([`crate::infer::exact_posterior`],
    /// [`crate::infer::posterior`]) reports those as [`Error::Inconsistent`].
    ///
    /// # Errors
    /// [`Error::OffBoard`] or [`Error::AlreadyShot`] for the cell; [`Error::Shot`] when the
    /// answer names a ship that does not exist or is not one the rules can give.
    pub fn record(&mut self, cell: usize, shot: Shot) -> Result<(), Error> {
        if cell >= self.geo.rules().cells() {
            return Err(Error::OffBoard { cell });
        }
        let m = 1u128 << cell;
        if (self.misses | self.hits | self.sunk_cells) & m != 0 {
            return Err(Error::AlreadyShot { cell });
        }
        self.check_answer(cell, shot)?;
        match shot {
            Shot::Miss => self.misses |= m,
            Shot::Hit { ship } => {
                self.hits |= m;
                if let Some(k) = ship {
                    self.named[k] |= m;
                }
            }
            Shot::Sunk { ship, cells } => {
                self.hits |= m;
                self.named[ship] |= m | cells.unwrap_or(0);
                self.sunk[ship] = Some(Sunk {
                    at: cell,
                    hits_then: self.hits,
                    cells,
                });
            }
        }
        self.pending &= !m;
        self.shots += 1;
        Ok(())
    }

    /// Whether the rules can give `shot` as the answer at `cell` (see [`View::record`]).
    fn check_answer(&self, cell: usize, shot: Shot) -> Result<(), Error> {
        let rules = self.geo.rules();
        let feedback = rules.feedback;
        let ship_exists = |k: usize| {
            if k < self.sunk.len() {
                Ok(())
            } else {
                Err(Error::Shot(format!("no ship {k}")))
            }
        };
        match shot {
            Shot::Miss | Shot::Hit { ship: None } => Ok(()),
            Shot::Hit { ship: Some(k) } => {
                ship_exists(k)?;
                if feedback == Feedback::HitNamesShip {
                    if self.sunk[k].is_some() {
                        return Err(Error::Shot(format!(
                            "a hit on {}, which was already sunk",
                            rules.fleet[k].name
                        )));
                    }
                    Ok(())
                } else {
                    Err(Error::Shot(format!(
                        "a hit naming its ship, under `{}` feedback, which names none",
                        feedback.name()
                    )))
                }
            }
            Shot::Sunk { ship, cells } => {
                ship_exists(ship)?;
                if !feedback.reports_sunk() {
                    return Err(Error::Shot(format!(
                        "a sinking, under `{}` feedback, which announces none",
                        feedback.name()
                    )));
                }
                if self.sunk[ship].is_some() {
                    return Err(Error::Shot(format!(
                        "{} was already sunk",
                        rules.fleet[ship].name
                    )));
                }
                match (cells, feedback) {
                    (None, Feedback::SunkRevealsCells) => Err(Error::Shot(format!(
                        "a sinking without its cells, under `{}` feedback, which reveals them",
                        feedback.name()
                    ))),
                    (None, _) => {
                        // A ship sinks when its last cell is hit: a line of its length
                        // through `cell` must be all hits.
                        let hit = self.hits | 1u128 << cell;
                        let fits = (self.geo.placements(ship))
                            .any(|c| c >> cell & 1 == 1 && c & !hit == 0);
                        if fits {
                            Ok(())
                        } else {
                            Err(Error::Shot(format!(
                                "{} cannot sink at cell {cell}: no line of its length through \
                                 it is all hits",
                                rules.fleet[ship].name
                            )))
                        }
                    }
                    (Some(c), Feedback::SunkRevealsCells) => {
                        let placement = self.geo.placements(ship).any(|p| p == c);
                        let name = &rules.fleet[ship].name;
                        if !placement || c >> cell & 1 == 0 {
                            return Err(Error::Shot(format!(
                                "the revealed cells of {name} are not a placement of it \
                                 through cell {cell}"
                            )));
                        }
                        // A ship sinks when its last cell is hit: all the others were hits.
                        if c & !(self.hits | 1u128 << cell) != 0 {
                            return Err(Error::Shot(format!(
                                "the revealed cells of {name} include cells not hit"
                            )));
                        }
                        // Ships never share a cell, nor, under no-touch, a neighbour.
                        let no_touch = rules.adjacency == Adjacency::NoTouch;
                        for (j, earlier) in self.sunk.iter().enumerate() {
                            let Some(other) = earlier.as_ref().and_then(|s| s.cells) else {
                                continue;
                            };
                            let reach = if no_touch {
                                cells_of(other).fold(0, |m, q| m | self.geo.halo(q))
                            } else {
                                other
                            };
                            if c & reach != 0 {
                                return Err(Error::Shot(format!(
                                    "the revealed cells of {name} {} those of {}",
                                    if no_touch { "touch" } else { "overlap" },
                                    rules.fleet[j].name
                                )));
                            }
                        }
                        Ok(())
                    }
                    (Some(_), _) => Err(Error::Shot(format!(
                        "revealed cells of a sunk ship, under `{}` feedback, which reveals none",
                        feedback.name()
                    ))),
                }
            }
        }
    }
}

/// A game in progress: the hidden fleet and the shooter's view.
#[derive(Debug, Clone)]
pub struct Game {
    fleet: Fleet,
    /// Intact cells of each ship.
    intact: Vec<u128>,
    view: View,
}

impl Game {
    /// A new game against `fleet`, which must be one of `geo`'s: a fleet for other rules
    /// (ships missing, extra, of other lengths, placed for another width) would play a wrong
    /// game, so it is refused.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use battleship::{Dir, Fleet, Game, Geometry, Rules, ShipPlacement, Shot};
    ///
    /// let geo = Geometry::new(&Rules::with_lengths(5, 5, &[2]))?;
    /// let at = |x, y| ShipPlacement { x, y, dir: Dir::Horizontal };
    /// let mut game = Game::new(Arc::clone(&geo), Fleet::new(&geo, vec![at(1, 1)])?)?;
    /// assert_eq!(game.shoot(6)?, Shot::Hit { ship: None });
    /// assert!(matches!(game.shoot(7)?, Shot::Sunk { ship: 0, .. }));
    /// assert!(game.is_over());
    ///
    /// // A fleet of another board's rules is refused.
    /// let other = Geometry::new(&Rules::with_lengths(5, 5, &[3]))?;
    /// let theirs = Fleet::new(&other, vec![at(0, 0)])?;
    /// assert!(Game::new(geo, theirs).is_err());
    /// # Ok::<(), battleship::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidFleet`] when `fleet` is not one of `geo`'s ([`Fleet::check`]).
    pub fn new(geo: Arc<Geometry>, fleet: Fleet) -> Result<Game, Error> {
        fleet.check(&geo)?;
        let n = geo.rules().fleet.len();
        let intact = (0..n).map(|i| fleet.cells(i)).collect();
        Ok(Game {
            fleet,
            intact,
            view: View::new(geo),
        })
    }

    /// The hidden fleet.
    pub fn fleet(&self) -> &Fleet {
        &self.fleet
    }

    /// The shooter's view.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// Marks `cell` as chosen in the current salvo turn ([`View::set_pending`]), the one
    /// change to the view that does not come from a shot: the rest follows from
    /// [`Game::shoot`], so the view always agrees with the fleet.
    pub fn set_pending(&mut self, cell: usize) {
        self.view.set_pending(cell);
    }

    /// Whether every ship is sunk.
    pub fn is_over(&self) -> bool {
        self.intact.iter().all(|&c| c == 0)
    }

    /// Shoots at `cell` and returns the answer the rules give.
    ///
    /// # Errors
    /// [`Error::GameOver`], [`Error::OffBoard`] or [`Error::AlreadyShot`].
    pub fn shoot(&mut self, cell: usize) -> Result<Shot, Error> {
        if self.is_over() {
            return Err(Error::GameOver);
        }
        if cell >= self.view.geo.rules().cells() {
            return Err(Error::OffBoard { cell });
        }
        let m = 1u128 << cell;
        let feedback = self.view.geo.rules().feedback;
        let shot = match self.intact.iter().position(|&c| c & m != 0) {
            None if self.fleet.all_cells() & m != 0 => Shot::Hit { ship: None },
            None => Shot::Miss,
            Some(k) => {
                let sunk = self.intact[k] == m;
                match (feedback, sunk) {
                    (Feedback::Bare, _) => Shot::Hit { ship: None },
                    (Feedback::HitNamesShip, false) => Shot::Hit { ship: Some(k) },
                    (_, false) => Shot::Hit { ship: None },
                    (Feedback::SunkRevealsCells, true) => Shot::Sunk {
                        ship: k,
                        cells: Some(self.fleet.cells(k)),
                    },
                    (_, true) => Shot::Sunk {
                        ship: k,
                        cells: None,
                    },
                }
            }
        };
        // Checks "already shot" before changing anything.
        self.view.record(cell, shot)?;
        for c in &mut self.intact {
            *c &= !m;
        }
        Ok(shot)
    }

    /// Cells of the board, for display: `(ship cells, shot cells)`.
    pub fn masks(&self) -> (u128, u128) {
        (self.fleet.all_cells(), self.view.misses | self.view.hits)
    }
}

/// Row-major `(x, y)` of a cell.
pub fn xy(geo: &Geometry, cell: usize) -> (usize, usize) {
    let w = geo.rules().width;
    (cell % w, cell / w)
}

/// Every cell of a mask, as `(x, y)`.
pub fn cells_xy(geo: &Geometry, m: u128) -> Vec<(usize, usize)> {
    cells_of(m).map(|c| xy(geo, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// A 6x6 board with ships of lengths 3 and 2, standard feedback.
    fn view() -> View {
        View::new(Geometry::new(&Rules::with_lengths(6, 6, &[3, 2])).unwrap())
    }

    fn at(x: usize, y: usize) -> usize {
        y * 6 + x
    }

    fn mask(cells: &[(usize, usize)]) -> u128 {
        cells.iter().fold(0, |m, &(x, y)| m | 1u128 << at(x, y))
    }

    const HIT: Shot = Shot::Hit { ship: None };

    fn sunk(ship: usize) -> Shot {
        Shot::Sunk { ship, cells: None }
    }

    #[test]
    fn masks_build_a_view_only_when_they_are_disjoint_and_on_the_board() {
        let geo = view().geometry().clone();
        let (a, b, c) = (mask(&[(0, 0)]), mask(&[(1, 0), (2, 0)]), mask(&[(5, 5)]));
        let mut v = View::from_masks(geo.clone(), a, b, c).unwrap();
        assert_eq!((v.misses(), v.hits(), v.sunk_cells()), (a, b, c));
        assert_eq!(v.shots(), 4, "every marked cell was shot once");
        assert_eq!(v.unknown(), geo.all_cells() & !(a | b | c));
        v.set_pending(at(5, 5));
        assert_eq!(
            v.unknown(),
            geo.all_cells() & !(a | b | c),
            "pending and sunk"
        );
        let off = 1u128 << 36;
        for (m, h, s) in [
            (a, a, 0),
            (a, 0, a),
            (0, b, b),
            (off, 0, 0),
            (0, off, 0),
            (0, 0, off),
        ] {
            let e = View::from_masks(geo.clone(), m, h, s).unwrap_err();
            assert!(e.to_string().contains("overlap or leave"), "{e}");
        }
    }

    #[test]
    fn pending_cells_are_neither_unknown_nor_kept_once_answered() {
        let mut v = view();
        assert_eq!(v.shots(), 0);
        v.record(at(0, 0), Shot::Miss).unwrap();
        v.set_pending(at(0, 0));
        v.set_pending(at(3, 3));
        v.set_pending(36);
        v.set_pending(127);
        assert_eq!(
            v.pending(),
            mask(&[(0, 0), (3, 3)]),
            "cells off the board are ignored"
        );
        assert_eq!(
            v.unknown(),
            v.geometry().all_cells() & !mask(&[(0, 0), (3, 3)]),
            "a pending cell already shot stays out of the unknown cells"
        );
        v.record(at(3, 3), HIT).unwrap();
        assert_eq!(v.pending(), mask(&[(0, 0)]));
        assert_eq!(v.shots(), 2);
    }

    /// Where every hit names its ship, a sunk ship's cells are the hits that named it, not a
    /// guess: here the guess (the first line of two hits through the sinking cell) would
    /// take the hit of the ship still afloat.
    #[test]
    fn named_hits_resolve_a_sunk_ship_exactly() {
        let geo = Geometry::new(&Rules {
            feedback: Feedback::HitNamesShip,
            ..Rules::with_lengths(6, 6, &[2, 2])
        })
        .unwrap();
        let mut v = View::new(geo);
        // Ship 0 stands at (2,0)-(2,1), ship 1 at (0,0)-(1,0).
        v.record(at(2, 0), Shot::Hit { ship: Some(0) }).unwrap();
        v.record(at(0, 0), Shot::Hit { ship: Some(1) }).unwrap();
        v.record(at(1, 0), sunk(1)).unwrap();
        assert_eq!(v.unresolved_hits(), mask(&[(2, 0)]));
        // With a hit that names no ship (a view built by hand), the guess still leaves out the
        // hit that named ship 0.
        let mut v = View::new(v.geometry().clone());
        v.record(at(2, 0), Shot::Hit { ship: Some(0) }).unwrap();
        v.record(at(0, 0), HIT).unwrap();
        v.record(at(1, 0), sunk(1)).unwrap();
        assert_eq!(v.unresolved_hits(), mask(&[(2, 0)]));
    }

    /// Sunk ships are given their cells in the order they sank: ship 1 (at (0,0)-(1,0)) sank
    /// first, so the hits at (0,0) and (1,0) are its own, and ship 0 (at (2,0)-(2,1)), sunk
    /// at (2,0) later, lies along the column. In ship-number order, ship 0 would take (1,0)
    /// and (2,0), and two hits of sunk ships would seem to belong to ships afloat.
    #[test]
    fn sunk_ships_are_resolved_in_the_order_they_sank() {
        let geo = Geometry::new(&Rules::with_lengths(6, 6, &[2, 2])).unwrap();
        let mut v = View::new(geo);
        v.record(at(0, 0), HIT).unwrap();
        v.record(at(1, 0), sunk(1)).unwrap();
        v.record(at(2, 1), HIT).unwrap();
        v.record(at(2, 0), sunk(0)).unwrap();
        assert_eq!(v.unresolved_hits(), 0);
    }

    #[test]
    fn answers_naming_ships_are_checked_and_recorded() {
        let geo = |feedback| {
            Geometry::new(&Rules {
                feedback,
                ..Rules::with_lengths(6, 6, &[3, 2])
            })
            .unwrap()
        };
        // Ship 2 is one past the last: refused, under the rules that name ships.
        let mut v = View::new(geo(Feedback::HitNamesShip));
        assert!(v.record(0, Shot::Hit { ship: Some(2) }).is_err());
        assert!(v.record(0, sunk(2)).is_err());
        assert_eq!(v, View::new(geo(Feedback::HitNamesShip)));
        v.record(0, Shot::Hit { ship: Some(1) }).unwrap();
        assert_eq!((v.named(1), v.named(0), v.named(2)), (1, 0, 0));
        // Once ship 1 is sunk, no later hit names it.
        v.record(1, sunk(1)).unwrap();
        let before = v.clone();
        let e = v.record(2, Shot::Hit { ship: Some(1) }).unwrap_err();
        assert!(e.to_string().contains("already sunk"), "{e}");
        assert_eq!(v, before);
        v.record(2, Shot::Hit { ship: Some(0) }).unwrap();

        // Revealed cells must all have been hit, but for the sinking cell, and are all
        // named, that cell included.
        let reveal = |cells| Shot::Sunk {
            ship: 1,
            cells: Some(cells),
        };
        let mut v = View::new(geo(Feedback::SunkRevealsCells));
        v.record(1, Shot::Miss).unwrap();
        let e = v.record(0, reveal(0b11)).unwrap_err();
        assert!(e.to_string().contains("include cells not hit"), "{e}");
        // Nor a cell never shot at: a ship of two does not sink with one hit.
        let e = v
            .record(at(1, 1), reveal(mask(&[(1, 1), (1, 2)])))
            .unwrap_err();
        assert!(e.to_string().contains("include cells not hit"), "{e}");
        // Through the cell, the others hit, but not the two cells of ship 1: a gap, a
        // diagonal, three cells.
        for (cell, cells) in [(2, 0b10100u128), (3, 1 << 3 | 1 << 10), (3, 0b111 << 3)] {
            let mut w = v.clone();
            for c in (0..128).filter(|&c| c != cell && cells >> c & 1 == 1) {
                w.record(c, HIT).unwrap();
            }
            let e = w.record(cell, reveal(cells)).unwrap_err();
            assert!(e.to_string().contains("not a placement"), "{e}");
        }
        v.record(at(1, 2), HIT).unwrap();
        let line = mask(&[(1, 1), (1, 2)]);
        v.record(at(1, 1), reveal(line)).unwrap();
        assert_eq!(v.named(1), line);
        assert_eq!(v.hits(), line);
        assert_eq!(v.sunk()[1].map(|s| s.cells), Some(Some(line)));
        assert_eq!(v.unresolved_hits(), 0);
    }

    /// A revealed ship cannot share a cell with one revealed before it, nor, under no-touch,
    /// a neighbour; the view is then unchanged.
    #[test]
    fn revealed_ships_keep_clear_of_earlier_ones() {
        for adjacency in [Adjacency::Allowed, Adjacency::NoTouch] {
            let geo = Geometry::new(&Rules {
                feedback: Feedback::SunkRevealsCells,
                adjacency,
                ..Rules::with_lengths(6, 6, &[2, 2])
            })
            .unwrap();
            let reveal = |ship, cells| Shot::Sunk {
                ship,
                cells: Some(cells),
            };
            let mut v = View::new(geo);
            v.record(at(0, 0), HIT).unwrap();
            // A sinking under this feedback gives the ship's cells.
            let e = v.record(at(1, 0), sunk(0)).unwrap_err();
            assert!(e.to_string().contains("without its cells"), "{e}");
            v.record(at(1, 0), reveal(0, mask(&[(0, 0), (1, 0)])))
                .unwrap();
            // Overlapping: the second ship sinks at (2, 0) through (1, 0) again.
            let before = v.clone();
            let e = v
                .record(at(2, 0), reveal(1, mask(&[(1, 0), (2, 0)])))
                .unwrap_err();
            let word = match adjacency {
                Adjacency::Allowed => "overlap those of",
                Adjacency::NoTouch => "touch those of",
            };
            assert!(e.to_string().contains(word), "{e}");
            assert_eq!(v, before);
            v.record(at(2, 0), HIT).unwrap();
            let before = v.clone();
            // Beside the first ship: allowed only when ships may touch.
            let e = v.record(at(3, 0), reveal(1, mask(&[(2, 0), (3, 0)])));
            match adjacency {
                Adjacency::Allowed => assert!(e.is_ok(), "{e:?}"),
                Adjacency::NoTouch => {
                    let e = e.unwrap_err();
                    assert!(e.to_string().contains("touch those of"), "{e}");
                    assert_eq!(v, before);
                }
            }
        }
    }

    #[test]
    fn the_game_shows_ships_and_shots_by_cell_and_coordinates() {
        use crate::fleet::{Dir, ShipPlacement};
        let geo = view().geometry().clone();
        let place = |x, y, dir| ShipPlacement { x, y, dir };
        let fleet = Fleet::new(
            &geo,
            vec![place(0, 0, Dir::Horizontal), place(4, 2, Dir::Vertical)],
        )
        .unwrap();
        let mut game = Game::new(geo.clone(), fleet).unwrap();
        assert_eq!(game.shoot(at(5, 5)).unwrap(), Shot::Miss);
        assert_eq!(game.shoot(at(4, 3)).unwrap(), HIT);
        let ships = mask(&[(0, 0), (1, 0), (2, 0), (4, 2), (4, 3)]);
        assert_eq!(game.masks(), (ships, mask(&[(5, 5), (4, 3)])));
        assert_eq!(xy(&geo, at(4, 3)), (4, 3));
        assert_eq!(
            cells_xy(&geo, ships),
            [(0, 0), (1, 0), (2, 0), (4, 2), (4, 3)]
        );
    }

    /// A fleet of other rules would play a wrong game (a missing ship sunk from the start, a
    /// ship of another width's board on other cells): the game refuses it.
    #[test]
    fn a_game_refuses_a_fleet_of_other_rules() {
        use crate::fleet::{Dir, ShipPlacement};
        let geo = view().geometry().clone();
        let place = |x, y| ShipPlacement {
            x,
            y,
            dir: Dir::Horizontal,
        };
        let wider = Geometry::new(&Rules::with_lengths(7, 6, &[3, 2])).unwrap();
        let theirs = Fleet::new(&wider, vec![place(0, 1), place(4, 3)]).unwrap();
        let err = Game::new(geo.clone(), theirs).unwrap_err();
        assert!(err.to_string().contains("another width"), "{err}");
        let fewer = Geometry::new(&Rules::with_lengths(6, 6, &[3])).unwrap();
        let theirs = Fleet::new(&fewer, vec![place(0, 0)]).unwrap();
        assert!(matches!(
            Game::new(geo.clone(), theirs),
            Err(Error::InvalidFleet(_))
        ));
        let ours = Fleet::new(&geo, vec![place(0, 1), place(4, 3)]).unwrap();
        assert!(Game::new(geo, ours).is_ok());
    }

    /// Records hits at `hits`, then ship `ship` sunk at `at`.
    fn hit_then_sink(v: &mut View, hits: &[(usize, usize)], (x, y): (usize, usize), ship: usize) {
        for &(hx, hy) in hits {
            v.record(self::at(hx, hy), HIT).unwrap();
        }
        v.record(self::at(x, y), sunk(ship)).unwrap();
    }

    #[test]
    fn sunk_ships_are_given_the_first_line_of_their_hits() {
        // Horizontal first: the line left of the sinking cell, not the hit below it.
        let mut v = view();
        hit_then_sink(&mut v, &[(1, 0), (2, 0), (3, 1)], (3, 0), 0);
        assert_eq!(v.unresolved_hits(), mask(&[(3, 1)]));
        assert_eq!(v.afloat().collect::<Vec<_>>(), [1]);

        // Vertical when no horizontal line fits, away from the first row and column.
        let mut v = view();
        hit_then_sink(&mut v, &[(4, 2), (2, 3)], (4, 3), 1);
        assert_eq!(v.unresolved_hits(), mask(&[(2, 3)]));
        assert_eq!(v.afloat().collect::<Vec<_>>(), [0]);

        // A line already given to another ship is not reused.
        let mut v = view();
        hit_then_sink(&mut v, &[(1, 0), (2, 0)], (3, 0), 0);
        hit_then_sink(&mut v, &[(4, 1)], (4, 0), 1);
        assert_eq!(
            v.unresolved_hits(),
            0,
            "ship 1 takes (4,0)-(4,1), not (3,0)-(4,0)"
        );
        // A line of hits of which another ship took a cell: the sinking is recorded, as
        // `record` checks each answer against the hits alone, but no line is left to give
        // it, and the posterior finds that no fleet gives these answers.
        let mut v = view();
        hit_then_sink(&mut v, &[(1, 0)], (2, 0), 1);
        hit_then_sink(&mut v, &[], (3, 0), 0);
        assert_eq!(v.unresolved_hits(), 0);
        assert_eq!(v.afloat().count(), 0);
        let budget = csp_core::Budget::default();
        assert_eq!(
            crate::infer::exact_posterior(&v, &budget).unwrap_err(),
            Error::Inconsistent
        );
        // A sinking with no line of hits through it is refused, the view unchanged.
        let mut v = view();
        v.record(at(5, 5), HIT).unwrap();
        let before = v.clone();
        let e = v.record(at(0, 5), sunk(0)).unwrap_err();
        assert!(e.to_string().contains("no line of its length"), "{e}");
        assert_eq!(v, before);
    }
}
