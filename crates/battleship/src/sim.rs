//! Playing whole games, fleet placers, and the seeds that make every game replayable.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::Error;
use crate::fleet::Fleet;
use crate::game::{Game, View};
use crate::rules::{Geometry, cells_of};
use crate::shooters::{Shooter, density};

/// How the defender places its fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placer {
    /// Exactly uniform among all valid fleets ([`Fleet::random`]).
    Uniform,
    /// Against density shooters: of [`ANTI_DENSITY_CANDIDATES`] uniform fleets, the one whose
    /// cells have the lowest total placement density on the empty board (ships pushed to the
    /// edges and corners, where density shooters look last).
    AntiDensity,
}

/// Uniform fleets drawn by [`Placer::AntiDensity`] for each fleet it returns.
pub const ANTI_DENSITY_CANDIDATES: usize = 200;

impl Placer {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Placer::Uniform => "uniform",
            Placer::AntiDensity => "anti-density",
        }
    }

    /// Draws a fleet.
    ///
    /// # Errors
    /// As [`Fleet::random`].
    pub fn place(self, geo: &Arc<Geometry>, rng: &mut impl Rng) -> Result<Fleet, Error> {
        match self {
            Placer::Uniform => Fleet::random(geo, rng),
            Placer::AntiDensity => {
                let d = density(&View::new(Arc::clone(geo)));
                let mut best: Option<(f64, Fleet)> = None;
                for _ in 0..ANTI_DENSITY_CANDIDATES {
                    let f = Fleet::random(geo, rng)?;
                    let s: f64 = cells_of(f.all_cells()).map(|c| d[c]).sum();
                    if best.as_ref().is_none_or(|(b, _)| s < *b) {
                        best = Some((s, f));
                    }
                }
                best.map(|(_, f)| f)
                    .ok_or_else(|| Error::DrawFailed("no candidate fleet drawn".into()))
            }
        }
    }
}

impl FromStr for Placer {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "uniform" => Ok(Placer::Uniform),
            "anti-density" => Ok(Placer::AntiDensity),
            _ => Err(Error::UnknownName {
                kind: "placer",
                name: s.to_string(),
                expected: "uniform or anti-density".to_string(),
            }),
        }
    }
}

impl fmt::Display for Placer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The seed of game `index` of a run seeded with `seed` (a SplitMix-style mix): games are
/// independent of each other and of the order they are played in, so a parallel run equals a
/// sequential one.
#[must_use]
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut x = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 29;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 32)
}

/// The seed of the shooter's random choices in game `index` of a run seeded with `seed`:
/// the one `gameai battleship eval` hands to [`play`], so that tools replaying its games play
/// the same shots. Distinct from the fleet's seed ([`seeded_fleet`]).
#[must_use]
pub fn shooter_seed(seed: u64, index: u64) -> u64 {
    game_seed(seed ^ 0x5eed_5eed_5eed_5eed, index)
}

/// Fleet number `index` of a seeded run.
///
/// # Errors
/// As [`Placer::place`].
pub fn seeded_fleet(
    geo: &Arc<Geometry>,
    placer: Placer,
    seed: u64,
    index: u64,
) -> Result<Fleet, Error> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(game_seed(seed, index));
    placer.place(geo, &mut rng)
}

/// How one game went.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    /// Shots fired until every ship was sunk (or the game was abandoned).
    pub shots: u32,
    /// Decisions made: one per shot, except under salvo, where every pick of a turn counts,
    /// including those the turn never fired because its first shots ended the game.
    pub decisions: u32,
    /// Decisions made on estimated probabilities.
    pub estimated: u32,
    /// Total time spent deciding.
    pub decide_time: Duration,
    /// Longest single decision.
    pub decide_time_max: Duration,
    /// A shooter failure that ended the game early.
    pub error: Option<Error>,
}

/// Plays `fleet` to the end with `shooter`, whose random choices come from `shooter_seed`.
/// Under salvo rules the shooter picks `k` cells per turn (earlier picks of the turn are
/// pending in its view) before the answers are revealed.
pub fn play(
    geo: &Arc<Geometry>,
    fleet: Fleet,
    shooter: &mut dyn Shooter,
    shooter_seed: u64,
) -> GameRecord {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(shooter_seed);
    let mut game = Game::new(Arc::clone(geo), fleet);
    let mut rec = GameRecord {
        shots: 0,
        decisions: 0,
        estimated: 0,
        decide_time: Duration::ZERO,
        decide_time_max: Duration::ZERO,
        error: None,
    };
    let salvo = geo.rules().salvo.max(1);
    let cells = geo.rules().cells() as u32;
    while !game.is_over() && rec.shots < cells {
        let mut turn = Vec::with_capacity(salvo);
        for _ in 0..salvo {
            if game.view().unknown() == 0 {
                break;
            }
            let t = Instant::now();
            let d = shooter.choose(game.view(), &mut rng);
            let dt = t.elapsed();
            rec.decisions += 1;
            rec.decide_time += dt;
            rec.decide_time_max = rec.decide_time_max.max(dt);
            match d {
                Ok(d) => {
                    rec.estimated += u32::from(d.estimated);
                    game.view_mut().set_pending(d.cell);
                    turn.push(d.cell);
                }
                Err(e) => {
                    rec.error = Some(e);
                    return rec;
                }
            }
        }
        if turn.is_empty() {
            // Every cell is shot or pending while a ship is afloat: the view and the game
            // disagree. End the game with an error rather than loop without shooting.
            rec.error = Some(Error::Shot(
                "no cell is left to shoot, yet the game is not over".into(),
            ));
            return rec;
        }
        for c in turn {
            if game.is_over() {
                break;
            }
            if let Err(e) = game.shoot(c) {
                rec.error = Some(e);
                return rec;
            }
            rec.shots += 1;
        }
    }
    rec
}
