//! The text position reader on arbitrary UTF-8.
//!
//! Reading must never panic; a position that reads must write back to text that reads to an
//! equal position. Positions are also turned into views under both adjacency rules and
//! analysed exactly (with a small budget), and small ones by the posterior the command line
//! shows (exact under the standard rule, a short Markov chain under no-touch): each must
//! return probabilities in [0, 1] or an error, never panic. Where both exact counts fit
//! their budgets, the count by frontiers must give the search's posterior exactly.
#![no_main]

use battleship::infer::PosteriorConfig;
use battleship::{Adjacency, Rules, ShipSpec, text};
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(pos) = text::read(input) else {
        return;
    };
    let again = text::read(&text::write(&pos).expect("read positions write"))
        .expect("written positions read");
    assert_eq!(again, pos);
    for adjacency in [Adjacency::Allowed, Adjacency::NoTouch] {
        let rules = Rules {
            fleet: vec![ShipSpec::new("A", 3), ShipSpec::new("B", 2)],
            adjacency,
            ..Rules::standard()
        };
        let Ok(view) = pos.view(&rules) else {
            continue;
        };
        let search =
            battleship::infer::exact_posterior(&view, &csp_core::Budget { max_nodes: 20_000 });
        if let Ok(post) = &search {
            assert!(post.hit.iter().all(|p| (0.0..=1.0 + 1e-9).contains(p)));
        }
        let frontier =
            battleship::infer::frontier_posterior(&view, &csp_core::Budget { max_nodes: 20_000 });
        match (&search, &frontier) {
            (Ok(s), Ok(f)) => {
                assert_eq!(s.solutions, f.solutions);
                assert_eq!((&s.hit, &s.ships), (&f.hit, &f.ships));
            }
            (Err(battleship::Error::Inconsistent), Ok(_))
            | (Ok(_), Err(battleship::Error::Inconsistent)) => {
                panic!("one exact count finds fleets, the other none")
            }
            _ => {}
        }
        // What `gameai battleship show` computes: exact, else the chain (a short one here),
        // on small boards so that each input stays quick.
        if pos.width * pos.height <= 64 {
            // Under no-touch the chain alone (these small counts always fit the exact
            // budget, so it would never run otherwise).
            let config = PosteriorConfig {
                exact_nodes: if adjacency == Adjacency::NoTouch {
                    0
                } else {
                    2000
                },
                burn_in: 5,
                sweeps: 20,
                ..PosteriorConfig::default()
            };
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            if let Ok(post) = battleship::infer::posterior(&view, &config, &mut rng) {
                assert!(post.hit.iter().all(|p| (0.0..=1.0 + 1e-9).contains(p)));
            }
        }
    }
});
