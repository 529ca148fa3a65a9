//! A shooter's view fed arbitrary answers, as a program relaying a real game would feed it.
//!
//! The first bytes choose the rules (adjacency, feedback) and a small board; then every three
//! bytes are a cell, an answer kind and a ship (and, for revealed cells, a start). Recording
//! must never panic; a refused answer must leave the view as it was; the view written as text
//! must mark as sunk only cells it hit; and the exact posterior of whatever was accepted must
//! answer (a result or an error, within a small budget) without panicking, with
//! probabilities in 0..=1 when it does.
#![no_main]

use battleship::{Adjacency, Feedback, Geometry, Rules, Shot, View, infer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [a, b, size, answers @ ..] = data else {
        return;
    };
    let (w, h) = (3 + usize::from(size % 4), 3 + usize::from(size / 4 % 4));
    let mut rules = Rules::with_lengths(w, h, &[3, 2]);
    rules.adjacency = [Adjacency::Allowed, Adjacency::NoTouch][usize::from(a & 1)];
    rules.feedback = Feedback::ALL[usize::from(b % 4)];
    let Ok(geo) = Geometry::new(&rules) else {
        return;
    };
    let mut view = View::new(geo.clone());
    for chunk in answers.chunks_exact(3) {
        let (cell, kind, ship) = (usize::from(chunk[0]), chunk[1], usize::from(chunk[2] % 3));
        let shot = match kind % 4 {
            0 => Shot::Miss,
            1 => Shot::Hit { ship: None },
            2 => Shot::Hit { ship: Some(ship) },
            _ => Shot::Sunk {
                ship,
                // Revealed cells: a placement of the ship (or garbage) from the high bits.
                cells: (kind & 4 != 0).then(|| {
                    geo.families(ship)
                        .iter()
                        .flat_map(|f| battleship::cells_of(f.starts()).map(|s| f.cells(s as u32)))
                        .nth(usize::from(kind >> 3))
                        .unwrap_or(u128::from(kind))
                }),
            },
        };
        let before = view.clone();
        if view.record(cell, shot).is_err() {
            assert_eq!(view, before, "a refused answer changed the view");
        }
    }
    // Written as text, the sunk cells are hit cells of the view, and the rest are its hits.
    if let Ok(p) = battleship::text::TextPosition::from_view(&view) {
        let shot = view.hits() | view.sunk_cells();
        assert_eq!(p.hits | p.sunk, shot, "text of the view");
        assert_eq!(p.hits & p.sunk, 0);
        assert_eq!(p.misses, view.misses());
        assert!(battleship::text::write(&p).is_ok());
    }
    let budget = csp_core::Budget { max_nodes: 20_000 };
    if let Ok(post) = infer::exact_posterior(&view, &budget) {
        assert!(post.hit.iter().all(|p| (0.0..=1.0).contains(p)));
    }
});
