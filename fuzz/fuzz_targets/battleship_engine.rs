//! The game engine on arbitrary shot sequences.
//!
//! The first bytes choose the rules (adjacency, feedback) and the fleet's seed; every other
//! byte is a shot (values past the board test the bounds check). The engine must never panic,
//! must refuse repeated and out-of-board shots, must answer "miss" exactly on water, and the
//! game must end exactly when every ship cell has been hit.
#![no_main]

use battleship::{Adjacency, Feedback, Game, Geometry, Placer, Rules, Shot, seeded_fleet};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [a, b, s0, s1, shots @ ..] = data else {
        return;
    };
    let rules = Rules {
        adjacency: if a & 1 == 1 {
            Adjacency::NoTouch
        } else {
            Adjacency::Allowed
        },
        feedback: Feedback::ALL[usize::from(b % 4)],
        ..Rules::standard()
    };
    let geo = Geometry::new(&rules).expect("valid rules");
    let seed = u64::from(*s0) << 8 | u64::from(*s1);
    let fleet = seeded_fleet(&geo, Placer::Uniform, seed, 0).expect("a fleet");
    let ships = fleet.all_cells();
    let mut game = Game::new(geo, fleet).expect("a fleet of these rules");
    let mut shot = 0u128;
    for &c in shots {
        let c = usize::from(c);
        let over = game.is_over();
        let r = game.shoot(c);
        if c >= 100 || over || shot >> c & 1 == 1 {
            assert!(r.is_err());
            continue;
        }
        let answer = r.expect("a legal shot");
        shot |= 1u128 << c;
        assert_eq!(answer == Shot::Miss, ships >> c & 1 == 0);
        assert_eq!(game.is_over(), ships & !shot == 0);
    }
});
