//! Helpers shared by the integration tests: rule sets, every labelled fleet by brute force,
//! and replaying a game's answers against a fleet.
#![allow(dead_code, clippy::unwrap_used)]

use std::sync::Arc;

use battleship::{Adjacency, Dir, Feedback, Fleet, Game, Geometry, Rules, ShipPlacement, Shot};

pub fn rules(
    w: usize,
    h: usize,
    lens: &[usize],
    adjacency: Adjacency,
    feedback: Feedback,
) -> Rules {
    Rules {
        adjacency,
        feedback,
        ..Rules::with_lengths(w, h, lens)
    }
}

/// Every valid labelled fleet, by brute force over placements (independent of csp-core).
pub fn all_fleets(geo: &Arc<Geometry>) -> Vec<Fleet> {
    let r = geo.rules();
    let mut all = Vec::new();
    let mut per_ship: Vec<Vec<ShipPlacement>> = Vec::new();
    for _ in &r.fleet {
        let mut v = Vec::new();
        for y in 0..r.height {
            for x in 0..r.width {
                for dir in [Dir::Horizontal, Dir::Vertical] {
                    v.push(ShipPlacement { x, y, dir });
                }
            }
        }
        per_ship.push(v);
    }
    let n = r.fleet.len();
    let mut idx = vec![0usize; n];
    loop {
        let ps: Vec<ShipPlacement> = (0..n).map(|i| per_ship[i][idx[i]]).collect();
        if let Ok(f) = Fleet::new(geo, ps) {
            // Length-1 ships: horizontal and vertical are the same cells; count once.
            let dup =
                (0..n).any(|i| r.fleet[i].length == 1 && f.placements()[i].dir == Dir::Vertical);
            if !dup {
                all.push(f);
            }
        }
        let mut k = 0;
        loop {
            if k == n {
                return all;
            }
            idx[k] += 1;
            if idx[k] < per_ship[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

pub fn replay(geo: &Arc<Geometry>, fleet: &Fleet, shots: &[(usize, Shot)]) -> bool {
    let mut g = Game::new(geo.clone(), fleet.clone()).unwrap();
    shots.iter().all(|&(c, s)| g.shoot(c).ok() == Some(s))
}
