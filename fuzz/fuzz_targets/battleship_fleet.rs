//! The JSON-lines fleet reader on arbitrary UTF-8, under both adjacency rules of the standard
//! game and under rules with another board and fleet (a writer that assumed the standard
//! fleet's lengths once failed on those).
//!
//! Reading must never panic; every fleet read is valid and writes back to a line that reads
//! to an equal fleet.
#![no_main]

use battleship::{Geometry, Rules, read_fleets};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let small = Rules::with_lengths(7, 6, &[4, 3, 2]);
    for rules in [Rules::standard(), Rules::no_touch(), small] {
        let geo = Geometry::new(&rules).expect("these rules are valid");
        let Ok(fleets) = read_fleets(&geo, input) else {
            continue;
        };
        let cells: usize = rules.fleet.iter().map(|s| s.length).sum();
        for f in fleets {
            assert_eq!(f.all_cells().count_ones() as usize, cells);
            let again =
                battleship::read_fleet(&geo, &f.to_json(&geo)).expect("written fleets read");
            assert_eq!(again, f);
        }
    }
});
