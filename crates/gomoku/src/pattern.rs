//! Line patterns: what a stone placed on a cell makes along one line, precomputed into tables.
//!
//! A cell's neighbourhood along one direction is the five cells on each side, two bits a cell
//! (0 empty, 1 Black, 2 White, 3 wall): a 20-bit key. The table maps every key to the
//! [`Pattern`] Black and White would make by playing on the cell (one nibble each), so the
//! evaluation reads a pattern with one load. Five cells a side (rather than four) is what makes
//! the exactly-five rule exact: a run of five next to a sixth own stone is an overline, and only
//! the fifth cell shows it.
//!
//! The table is built once per rule from a dynamic program over the 3^10 ways the ten
//! neighbours can be empty, own or blocked (opponent stone or wall): a line is a four if exactly
//! one more stone makes five through the centre, an open four if two or more do, a three if one
//! more stone can make it a four, an open three if one more stone can make it an open four, and
//! so on down to two.

use std::sync::OnceLock;

use crate::Rule;

/// What a stone makes along one line through its cell, from nothing to five.
///
/// Ordered by strength. "Open" means two different follow-ups: an open four can be completed
/// on two different cells (a win unless the opponent makes five first), an open three can become
/// an open four.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// Nothing that can still become five, or a lone stone.
    None = 0,
    /// One more stone makes a three.
    Two = 1,
    /// One more stone makes an open three.
    OpenTwo = 2,
    /// One more stone makes a four.
    Three = 3,
    /// One more stone makes an open four.
    OpenThree = 4,
    /// Exactly one empty cell completes a five.
    Four = 5,
    /// Two or more empty cells complete a five.
    OpenFour = 6,
    /// A winning line (exactly five under [`Rule::ExactlyFive`]).
    Five = 7,
}

impl Pattern {
    /// All patterns, weakest first.
    pub const ALL: [Pattern; 8] = [
        Pattern::None,
        Pattern::Two,
        Pattern::OpenTwo,
        Pattern::Three,
        Pattern::OpenThree,
        Pattern::Four,
        Pattern::OpenFour,
        Pattern::Five,
    ];

    /// The pattern with discriminant `v & 7`.
    #[must_use]
    pub fn from_bits(v: u8) -> Pattern {
        Pattern::ALL[usize::from(v & 7)]
    }

    /// Whether it threatens five next move (four, open four).
    #[must_use]
    pub fn is_four(self) -> bool {
        matches!(self, Pattern::Four | Pattern::OpenFour)
    }
}

/// Number of neighbours in a key (five each side).
pub const NEIGHBOURS: usize = 10;
/// Number of 20-bit keys, the size of the exactly-five table; the freestyle table has
/// 65,536 entries (see [`table_index`], the way to index either).
#[doc(hidden)]
pub const TABLE_SIZE: usize = 1 << (2 * NEIGHBOURS);

/// The bit shift of the neighbour at `offset` (-5..=-1 or 1..=5) in a key; another offset
/// gives a meaningless shift, or panics where the arithmetic overflows.
#[must_use]
#[doc(hidden)]
pub fn slot_shift(offset: isize) -> u32 {
    let slot = if offset < 0 { offset + 5 } else { offset + 4 };
    2 * slot as u32
}

/// Ternary cell states along a line, seen by one colour.
const EMPTY: u8 = 0;
const OWN: u8 = 1;
const BLOCKED: u8 = 2;

/// Line of 11 cells (centre at 5) as ternary digits; the centre is always own.
fn five_through_centre(line: &[u8; 11], rule: Rule) -> bool {
    let mut n = 1;
    let mut i = 6;
    while i < 11 && line[i] == OWN {
        n += 1;
        i += 1;
    }
    let mut i = 4;
    while i < 11 && line[i] == OWN {
        n += 1;
        i = i.wrapping_sub(1);
    }
    match rule {
        Rule::Freestyle => n >= 5,
        Rule::ExactlyFive => n == 5,
    }
}

fn ternary_index(line: &[u8; 11]) -> usize {
    let mut idx = 0;
    for (k, &v) in line.iter().enumerate().rev() {
        if k != 5 {
            idx = idx * 3 + usize::from(v);
        }
    }
    idx
}

/// Classifies the line (centre own) by the dynamic program described in the module docs.
fn classify(line: &mut [u8; 11], rule: Rule, memo: &mut [u8]) -> Pattern {
    let idx = ternary_index(line);
    if memo[idx] != u8::MAX {
        return Pattern::from_bits(memo[idx]);
    }
    let p = if five_through_centre(line, rule) {
        Pattern::Five
    } else {
        let mut completions = 0;
        for e in 1..10 {
            if line[e] == EMPTY {
                line[e] = OWN;
                if five_through_centre(line, rule) {
                    completions += 1;
                }
                line[e] = EMPTY;
            }
        }
        match completions {
            0 => {
                let mut best = Pattern::None;
                for e in 1..10 {
                    if line[e] == EMPTY {
                        line[e] = OWN;
                        best = best.max(classify(line, rule, memo));
                        line[e] = EMPTY;
                    }
                }
                match best {
                    Pattern::OpenFour => Pattern::OpenThree,
                    Pattern::Four => Pattern::Three,
                    Pattern::OpenThree => Pattern::OpenTwo,
                    Pattern::Three => Pattern::Two,
                    _ => Pattern::None,
                }
            }
            1 => Pattern::Four,
            _ => Pattern::OpenFour,
        }
    };
    memo[idx] = p as u8;
    p
}

/// The pattern a stone of one colour makes on a line given as 11 cells, the centre (index 5)
/// being the new stone; each other cell is `Some(true)` own, `Some(false)` blocked (opponent or
/// wall), `None` empty. Slow and simple: the reference the tables are checked against.
#[must_use]
pub fn classify_line(cells: &[Option<bool>; 11], rule: Rule) -> Pattern {
    let mut line = [EMPTY; 11];
    for (l, c) in line.iter_mut().zip(cells) {
        *l = match c {
            None => EMPTY,
            Some(true) => OWN,
            Some(false) => BLOCKED,
        };
    }
    line[5] = OWN;
    let mut memo = vec![u8::MAX; 59049];
    classify(&mut line, rule, &mut memo)
}

/// The table index of a 20-bit key under `rule`. Freestyle patterns never depend on the fifth
/// cell each side (it only tells an overline from a five), so freestyle tables use the middle
/// 16 bits: 65536 entries of one byte, which stay in cache. Exactly-five uses the whole key.
#[must_use]
#[inline]
#[doc(hidden)]
pub fn table_index(rule: Rule, key: u32) -> usize {
    match rule {
        Rule::Freestyle => ((key >> 2) & 0xffff) as usize,
        Rule::ExactlyFive => key as usize,
    }
}

/// The pattern table of a rule, indexed by [`table_index`]: an entry holds Black's pattern in
/// the low nibble and White's in the high nibble.
#[must_use]
#[doc(hidden)]
pub fn table(rule: Rule) -> &'static [u8] {
    static FREE: OnceLock<Vec<u8>> = OnceLock::new();
    static EXACT: OnceLock<Vec<u8>> = OnceLock::new();
    let cell = match rule {
        Rule::Freestyle => &FREE,
        Rule::ExactlyFive => &EXACT,
    };
    cell.get_or_init(|| build_table(rule))
}

fn build_table(rule: Rule) -> Vec<u8> {
    // Ternary classification of every line, for one colour (colours are symmetric).
    let mut memo = vec![u8::MAX; 59049];
    let mut line = [EMPTY; 11];
    for idx in 0..59049usize {
        let mut r = idx;
        for (k, l) in line.iter_mut().enumerate() {
            if k == 5 {
                *l = OWN;
            } else {
                *l = (r % 3) as u8;
                r /= 3;
            }
        }
        classify(&mut line, rule, &mut memo);
    }
    // Powers of three of each slot, in key order (slot 0 = offset -5 .. slot 9 = offset +5).
    let mut pow = [0usize; NEIGHBOURS];
    let mut p = 1;
    for s in pow.iter_mut() {
        *s = p;
        p *= 3;
    }
    let size = match rule {
        Rule::Freestyle => 1 << 16,
        Rule::ExactlyFive => TABLE_SIZE,
    };
    let mut t = vec![0u8; size];
    for (index, entry) in t.iter_mut().enumerate() {
        // Freestyle: the outermost cells do not matter; read them as empty.
        let key = match rule {
            Rule::Freestyle => index << 2,
            Rule::ExactlyFive => index,
        };
        let (mut ib, mut iw) = (0, 0);
        for (s, &pw) in pow.iter().enumerate() {
            let c = (key >> (2 * s)) & 3;
            let (db, dw) = match c {
                0 => (0, 0),
                1 => (1, 2),
                2 => (2, 1),
                _ => (2, 2),
            };
            ib += db * pw;
            iw += dw * pw;
        }
        *entry = memo[ib] | (memo[iw] << 4);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> [Option<bool>; 11] {
        // 'x' own, 'o' blocked, '.' empty, '*' centre (own); pad with walls to 11 cells.
        let centre = s.find('*').unwrap_or(0);
        let mut cells = [Some(false); 11];
        for (i, ch) in s.chars().enumerate() {
            let k = 5 + i as isize - centre as isize;
            if (0..11).contains(&k) {
                cells[k as usize] = match ch {
                    'x' | '*' => Some(true),
                    '.' => None,
                    _ => Some(false),
                };
            }
        }
        cells
    }

    #[test]
    fn named_patterns() {
        let f = Rule::Freestyle;
        let cases = [
            ("..xx*xx..", Pattern::Five, Pattern::Five),
            ("..xx*xxx.", Pattern::Five, Pattern::None),
            ("...x*xx...", Pattern::OpenFour, Pattern::OpenFour),
            ("..ox*xx...", Pattern::Four, Pattern::Four),
            ("...x*x.x..", Pattern::Four, Pattern::Four),
            ("x.xx*.x", Pattern::OpenFour, Pattern::OpenFour),
            ("....*x.....", Pattern::OpenTwo, Pattern::OpenTwo),
            ("....*xx....", Pattern::OpenThree, Pattern::OpenThree),
            ("...o*xx....", Pattern::Three, Pattern::Three),
            ("o.x*x.o", Pattern::Three, Pattern::Three),
            ("ox*x..o", Pattern::Three, Pattern::Three),
            ("o*...o", Pattern::None, Pattern::None),
            ("o*xx.o", Pattern::None, Pattern::None),
            ("...o*x...", Pattern::Two, Pattern::Two),
            // Exactly five: a four whose only completion makes six is dead.
            ("oxx*x.xo", Pattern::Four, Pattern::None),
            ("x.xx*.o", Pattern::Four, Pattern::Four),
        ];
        for (s, free, exact) in cases {
            assert_eq!(classify_line(&parse(s), f), free, "{s} freestyle");
            assert_eq!(
                classify_line(&parse(s), Rule::ExactlyFive),
                exact,
                "{s} exactly five"
            );
        }
    }

    #[test]
    fn table_agrees_with_reference_on_samples() {
        for rule in [Rule::Freestyle, Rule::ExactlyFive] {
            let t = table(rule);
            let mut key: u32 = 12345;
            for _ in 0..20000 {
                key = key.wrapping_mul(1_103_515_245).wrapping_add(12345) & 0xf_ffff;
                for (c, shift) in [(1u32, 0), (2u32, 4)] {
                    let mut cells = [None; 11];
                    for s in 0..10 {
                        let v = (key >> (2 * s)) & 3;
                        let k = if s < 5 { s } else { s + 1 };
                        cells[k as usize] = match v {
                            0 => None,
                            v if v == c => Some(true),
                            _ => Some(false),
                        };
                    }
                    let want = classify_line(&cells, rule);
                    let got = t[table_index(rule, key)] >> shift;
                    assert_eq!(Pattern::from_bits(got), want, "{rule:?} {key:05x}");
                }
            }
        }
    }

    #[test]
    fn fours_and_bits() {
        for (i, &p) in Pattern::ALL.iter().enumerate() {
            assert_eq!(p as usize, i);
            assert_eq!(Pattern::from_bits(i as u8), p);
            assert_eq!(Pattern::from_bits(i as u8 | 0xf8), p);
            assert_eq!(p.is_four(), matches!(p, Pattern::Four | Pattern::OpenFour));
        }
        assert!(Pattern::ALL.windows(2).all(|w| w[0] < w[1]));
    }

    /// A key's slots run from offset -5 (bits 0-1) to +5 (bits 18-19), skipping the centre.
    #[test]
    fn slots_of_a_key() {
        let shifts: Vec<u32> = (-5..=5).filter(|&o| o != 0).map(slot_shift).collect();
        assert_eq!(shifts, (0..10).map(|s| 2 * s).collect::<Vec<u32>>());
    }
}
