//! The text position reader on arbitrary UTF-8.
//!
//! Reading must never panic; a position that reads must write back to text that reads to an
//! equal position. Small positions are also turned into views and analysed exactly (with a
//! small budget): that must return a posterior or an error, never panic.
#![no_main]

use battleship::{Rules, ShipSpec, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(pos) = text::read(input) else {
        return;
    };
    let again = text::read(&text::write(&pos)).expect("written positions read");
    assert_eq!(again, pos);
    let rules = Rules {
        fleet: vec![ShipSpec::new("A", 3), ShipSpec::new("B", 2)],
        ..Rules::standard()
    };
    if let Ok(view) = pos.view(&rules) {
        if let Ok(post) =
            battleship::infer::exact_posterior(&view, &csp_core::Budget { max_nodes: 20_000 })
        {
            assert!(post.hit.iter().all(|p| (0.0..=1.0 + 1e-9).contains(p)));
        }
    }
});
