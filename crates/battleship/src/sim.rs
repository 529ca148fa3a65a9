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
    /// edges and corners, where density shooters look last). A fleet so crowded that drawing
    /// it takes millions of rejected draws ([`Fleet::random`]) gets fewer candidates: none
    /// past the one that brought the draws to [`ANTI_DENSITY_DRAWS`].
    AntiDensity,
}

/// Uniform fleets drawn by [`Placer::AntiDensity`] for each fleet it returns.
pub const ANTI_DENSITY_CANDIDATES: usize = 200;

/// The rejection draws (of [`Fleet::random`]) after which [`Placer::AntiDensity`] takes no
/// more candidates. The standard fleet needs a few draws a fleet.
pub const ANTI_DENSITY_DRAWS: u64 = 20_000_000;

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
    pub fn place(self, geo: &Arc<Geometry>, rng: &mut (impl Rng + ?Sized)) -> Result<Fleet, Error> {
        match self {
            Placer::Uniform => Fleet::random(geo, rng),
            Placer::AntiDensity => {
                let d = density(&View::new(Arc::clone(geo)));
                let mut best: Option<(f64, Fleet)> = None;
                let mut draws = 0;
                for _ in 0..ANTI_DENSITY_CANDIDATES {
                    if draws >= ANTI_DENSITY_DRAWS {
                        break;
                    }
                    let f =
                        Fleet::random_within(geo, rng, crate::fleet::REJECTION_DRAWS, &mut draws)?;
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
    /// Parses `uniform` or `anti-density` (ignoring ASCII case and surrounding whitespace).
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
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
    /// A shooter failure that ended the game early, or why the fleet was refused.
    pub error: Option<Error>,
}

/// Plays `fleet` to the end with `shooter`, whose random choices come from `shooter_seed`.
/// Under salvo rules the shooter picks `k` cells per turn (earlier picks of the turn are
/// pending in its view) before the answers are revealed. A fleet that is not one of `geo`'s
/// ([`Fleet::check`]) is refused: no shot, and the reason in [`GameRecord::error`]. So is a
/// cell the shooter may not choose (off the board, shot before, or chosen earlier in the
/// same turn): the game ends with an [`Error::Shot`] that names it, before the turn fires.
pub fn play(
    geo: &Arc<Geometry>,
    fleet: Fleet,
    shooter: &mut dyn Shooter,
    shooter_seed: u64,
) -> GameRecord {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(shooter_seed);
    let mut rec = GameRecord {
        shots: 0,
        decisions: 0,
        estimated: 0,
        decide_time: Duration::ZERO,
        decide_time_max: Duration::ZERO,
        error: None,
    };
    let mut game = match Game::new(Arc::clone(geo), fleet) {
        Ok(game) => game,
        // A fleet for other rules: ships missing, extra, of other lengths or off the board.
        Err(e) => {
            rec.error = Some(e);
            return rec;
        }
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
            // A cell the shooter may not choose ends the game before any shot of the turn
            // is fired, with the reason.
            let d = d.and_then(|d| {
                let v = game.view();
                let why = if d.cell >= cells as usize {
                    "off the board"
                } else if v.pending() >> d.cell & 1 == 1 {
                    "already chosen this turn"
                } else if v.unknown() >> d.cell & 1 == 0 {
                    "already shot"
                } else {
                    return Ok(d);
                };
                Err(Error::Shot(format!(
                    "the shooter chose cell {}, which is {why}",
                    d.cell
                )))
            });
            match d {
                Ok(d) => {
                    rec.estimated += u32::from(d.estimated);
                    game.set_pending(d.cell);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    /// Always the same cell.
    #[derive(Debug)]
    struct Stubborn(usize);

    impl Shooter for Stubborn {
        fn name(&self) -> &'static str {
            "stubborn"
        }

        fn choose(
            &mut self,
            _: &crate::View,
            _: &mut dyn rand::Rng,
        ) -> Result<crate::Decision, Error> {
            Ok(crate::Decision {
                cell: self.0,
                estimated: false,
            })
        }
    }

    /// A cell a shooter may not choose ends the game with the reason, before the turn's
    /// shots are fired.
    #[test]
    fn a_cell_the_shooter_may_not_choose_ends_the_game() {
        for (salvo, cell, shots, why) in [
            (1, 0, 1, "cell 0, which is already shot"),
            (2, 0, 0, "cell 0, which is already chosen this turn"),
            (1, 99, 0, "cell 99, which is off the board"),
        ] {
            let geo = Geometry::new(&Rules {
                salvo,
                ..Rules::with_lengths(6, 6, &[3, 2])
            })
            .unwrap();
            let fleet = seeded_fleet(&geo, Placer::Uniform, 1, 0).unwrap();
            let rec = play(&geo, fleet, &mut Stubborn(cell), 1);
            assert_eq!(rec.shots, shots, "salvo {salvo}, cell {cell}");
            let e = rec.error.map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(why), "{e}");
        }
    }

    /// A fleet drawn for other rules: written with its own ships' lengths, and a game
    /// against it that cannot end is refused at once, not passed off as finished.
    #[test]
    fn a_fleet_for_other_rules_is_written_and_reported() {
        let big = Geometry::new(&Rules::standard()).unwrap();
        let small = Geometry::new(&Rules::with_lengths(4, 4, &[2])).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        // Ships far from the small board's 16 cells.
        let fleet = loop {
            let f = Fleet::random(&big, &mut rng).unwrap();
            if f.all_cells() & small.all_cells() == 0 {
                break f;
            }
        };
        let json = fleet.to_json(&small);
        assert!(
            json.starts_with("{\"width\":4,\"height\":4,\"ships\":[{\"length\":5,"),
            "{json}"
        );
        assert_eq!(json.matches("length").count(), 5);
        let mut shooter = crate::ShooterKind::Random.build();
        let rec = play(&small, fleet, shooter.as_mut(), 1);
        assert_eq!(rec.shots, 0);
        assert!(
            rec.error
                .is_some_and(|e| e.to_string().contains("5 ships given, the fleet has 1"))
        );
    }

    /// Fleets for other rules on the same board are refused too: fewer ships (one would
    /// count as sunk from the start), other lengths, or touching under no-touch.
    #[test]
    fn a_fleet_for_other_rules_on_the_same_board_is_refused() {
        let standard = Geometry::new(&Rules::standard()).unwrap();
        let mut no_touch_rules = Rules::standard();
        no_touch_rules.adjacency = crate::Adjacency::NoTouch;
        let no_touch = Geometry::new(&no_touch_rules).unwrap();
        let other = Geometry::new(&Rules::with_lengths(10, 10, &[5, 4, 3, 3, 3])).unwrap();
        let one = Geometry::new(&Rules::with_lengths(10, 10, &[2])).unwrap();
        let wide = Geometry::new(&Rules {
            width: 12,
            ..Rules::standard()
        })
        .unwrap();
        let row = |y| crate::ShipPlacement {
            x: 0,
            y,
            dir: crate::Dir::Horizontal,
        };
        let rows = |n| (0..n).map(row).collect::<Vec<_>>();
        let touching = Fleet::new(&standard, rows(5)).unwrap();
        for (geo, fleet, why) in [
            (
                &standard,
                Fleet::new(&one, rows(1)).unwrap(),
                "1 ship given",
            ),
            (
                &standard,
                Fleet::new(&other, rows(5)).unwrap(),
                "ship 5 is not the rules' Patrol Boat",
            ),
            (&no_touch, touching.clone(), "not allowed under no-touch"),
            // The first ship lies on the same cells of both boards, the second does not.
            (
                &standard,
                Fleet::new(&wide, rows(5)).unwrap(),
                "ship 2 lies on other cells than the rules' Battleship would",
            ),
        ] {
            let mut shooter = crate::ShooterKind::HuntTarget.build();
            let rec = play(geo, fleet, shooter.as_mut(), 1);
            assert_eq!(rec.shots, 0);
            let e = rec.error.expect("refused").to_string();
            assert!(e.contains(why), "{e}");
        }
        let mut shooter = crate::ShooterKind::HuntTarget.build();
        let rec = play(&standard, touching, shooter.as_mut(), 1);
        assert!(rec.error.is_none() && rec.shots >= 17);
    }

    #[test]
    fn placers_read_back_from_their_names() {
        for p in [Placer::Uniform, Placer::AntiDensity] {
            assert_eq!(p.name().parse::<Placer>().unwrap(), p);
            assert_eq!(p.to_string(), p.name());
        }
        assert_eq!(Placer::AntiDensity.name(), "anti-density");
        let e = "dense".parse::<Placer>().unwrap_err().to_string();
        assert!(
            e.contains("dense") && e.contains("uniform or anti-density"),
            "{e}"
        );
    }

    /// The anti-density placer keeps, of the uniform fleets it draws, the first one with the
    /// lowest density on the empty board.
    #[test]
    fn anti_density_keeps_the_first_least_dense_fleet() {
        let geo = Geometry::new(&Rules::standard()).unwrap();
        let d = density(&View::new(Arc::clone(&geo)));
        for seed in 0..5 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let drawn: Vec<(f64, Fleet)> = (0..ANTI_DENSITY_CANDIDATES)
                .map(|_| {
                    let f = Fleet::random(&geo, &mut rng).unwrap();
                    (cells_of(f.all_cells()).map(|c| d[c]).sum(), f)
                })
                .collect();
            let low = drawn.iter().map(|x| x.0).fold(f64::INFINITY, f64::min);
            let first = drawn.iter().find(|x| x.0 == low).unwrap();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let placed = Placer::AntiDensity.place(&geo, &mut rng).unwrap();
            assert_eq!(placed, first.1, "seed {seed}");
            // Uniform placement draws one fleet.
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            assert_eq!(Placer::Uniform.place(&geo, &mut rng).unwrap(), drawn[0].1);
        }
    }

    /// The seeds of published runs must not change: values from an independent
    /// implementation of the mix.
    #[test]
    fn seeds_are_pinned() {
        assert_eq!(game_seed(1, 0), 0x08ae_d039_0bd5_bae2);
        assert_eq!(game_seed(1, 1), 0xf42a_4ad8_b48d_78d2);
        assert_eq!(game_seed(7, 1000), 0x2c2b_f650_a06b_630f);
        assert_eq!(shooter_seed(1, 0), 0xdd15_6515_5eff_7342);
        assert_eq!(shooter_seed(1, 1), 0x8d8a_361a_c06d_2494);
        assert_eq!(shooter_seed(7, 1000), 0xc2f4_df5c_dd60_715b);
    }

    /// A game's record counts its shots, decisions (one a shot without salvo) and decisions
    /// on estimated probabilities.
    #[test]
    fn records_count_decisions_and_estimates() {
        use crate::ShooterKind;
        use crate::infer::PosteriorConfig;
        let mut r = Rules::standard();
        r.width = 6;
        r.height = 6;
        r.fleet.truncate(3);
        r.fleet[0].length = 3;
        let geo = Geometry::new(&r).unwrap();
        for (kind, sampled) in [
            (ShooterKind::HuntTarget, false),
            (ShooterKind::Posterior, true),
        ] {
            let config = PosteriorConfig {
                exact_nodes: 0,
                burn_in: 5,
                sweeps: 20,
                ..PosteriorConfig::default()
            };
            let mut shooter = kind.build_with(config);
            let fleet = seeded_fleet(&geo, Placer::Uniform, 3, 0).unwrap();
            let rec = play(&geo, fleet, shooter.as_mut(), shooter_seed(3, 0));
            assert!(rec.error.is_none());
            assert!(rec.shots >= 10 && rec.shots <= 36, "{}", rec.shots);
            assert_eq!(rec.decisions, rec.shots);
            assert_eq!(
                rec.estimated,
                if sampled { rec.shots } else { 0 },
                "{kind:?}"
            );
            assert!(rec.decide_time >= rec.decide_time_max);
        }
    }
}
