//! The JSON-lines fleet reader on arbitrary UTF-8, under both adjacency rules.
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
    for rules in [Rules::standard(), Rules::no_touch()] {
        let geo = Geometry::new(&rules).expect("standard rules are valid");
        let Ok(fleets) = read_fleets(&geo, input) else {
            continue;
        };
        for f in fleets {
            assert_eq!(f.all_cells().count_ones(), 17);
            let again =
                battleship::read_fleet(&geo, &f.to_json(&geo)).expect("written fleets read");
            assert_eq!(again, f);
        }
    }
});
