//! `BigUint` against `u128` arithmetic and independent computations.
#![allow(clippy::unwrap_used, clippy::needless_range_loop)]

use csp_core::BigUint;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn big(x: u128) -> BigUint {
    BigUint::from_u128(x)
}

/// A multi-limb number from a list of limbs (possibly with high zero limbs).
fn from_limbs(limbs: &[u64]) -> BigUint {
    let mut r = BigUint::zero();
    for &l in limbs.iter().rev() {
        r = r.mul(&BigUint::pow2(64)).add(&BigUint::from_u64(l));
    }
    r
}

fn limbs() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(prop_oneof![any::<u64>(), 0u64..4, Just(u64::MAX)], 0..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn add_matches_u128(a in 0..u128::MAX / 2, b in 0..u128::MAX / 2) {
        prop_assert_eq!(big(a).add(&big(b)).to_u128(), Some(a + b));
        let mut x = big(a);
        x.add_assign(&big(b));
        prop_assert_eq!(x.to_u128(), Some(a + b));
        prop_assert_eq!((&big(a) + &big(b)).to_u128(), Some(a + b));
    }

    #[test]
    fn mul_matches_u128(a in any::<u64>(), b in any::<u64>(), c in any::<u32>()) {
        let p = u128::from(a) * u128::from(b);
        prop_assert_eq!(big(a.into()).mul(&big(b.into())).to_u128(), Some(p));
        prop_assert_eq!(BigUint::from_u64(a).mul_u64(b).to_u128(), Some(p));
        prop_assert_eq!((&big(a.into()) * &big(b.into())).to_u128(), Some(p));
        // Two limbs times one: a number of 65 to 96 bits times one of up to 32 bits always
        // fits in a u128.
        let r = (1u128 << 64) | u128::from(a) | u128::from(b >> 32) << 64;
        let s = r * u128::from(c);
        prop_assert_eq!(big(r).mul(&big(u128::from(c))).to_u128(), Some(s));
        prop_assert_eq!(big(r).mul_u64(u64::from(c)).to_u128(), Some(s));
    }

    #[test]
    fn add_mul_matches_u128(acc in 0..u128::MAX / 2, a in any::<u64>(), m in any::<u32>()) {
        let mut x = big(acc);
        x.add_mul_u64_assign(&BigUint::from_u64(a), u64::from(m));
        prop_assert_eq!(x.to_u128(), Some(acc + u128::from(a) * u128::from(m)));
    }

    #[test]
    fn sub_cmp_display_f64_match_u128(a in any::<u128>(), b in any::<u128>()) {
        prop_assert_eq!(big(a).cmp(&big(b)), a.cmp(&b));
        prop_assert_eq!(big(a) == big(b), a == b);
        prop_assert_eq!(big(a).checked_sub(&big(b)).map(|x| x.to_u128().unwrap()), a.checked_sub(b));
        prop_assert_eq!(big(a).to_string(), a.to_string());
        prop_assert_eq!(big(a).is_zero(), a == 0);
        prop_assert_eq!(big(a).bits(), u64::from(128 - a.leading_zeros()));
        let f = big(a).to_f64();
        let g = a as f64;
        prop_assert!((f - g).abs() <= g * 1e-15, "{} vs {}", f, g);
        if b != 0 {
            let r = BigUint::ratio(&big(a), &big(b));
            let expected = a as f64 / b as f64;
            prop_assert!((r - expected).abs() <= expected * 1e-15, "{} vs {}", r, expected);
        }
    }

    #[test]
    fn div_rem_roundtrip(x in limbs(), d in 1u64.., r in any::<u64>()) {
        let r = r % d;
        let x = from_limbs(&x);
        let mut y = x.mul_u64(d).add(&BigUint::from_u64(r));
        prop_assert_eq!(y.div_rem_u64_assign(d), r);
        prop_assert_eq!(y, x);
    }

    /// Ring laws on multi-limb numbers (beyond u128).
    #[test]
    fn ring_laws(a in limbs(), b in limbs(), c in limbs()) {
        let (a, b, c) = (from_limbs(&a), from_limbs(&b), from_limbs(&c));
        prop_assert_eq!(a.mul(&b), b.mul(&a));
        prop_assert_eq!(a.mul(&b).mul(&c), a.mul(&b.mul(&c)));
        prop_assert_eq!(a.add(&b).mul(&c), a.mul(&c).add(&b.mul(&c)));
        prop_assert_eq!(a.add(&b).checked_sub(&b), Some(a.clone()));
        let mut into = BigUint::from_u64(12345);
        a.mul_into(&b, &mut into);
        prop_assert_eq!(into, a.mul(&b));
        let s = a.add(&b);
        prop_assert!(s >= a && s >= b);
        // ratio of a number with itself plus a little.
        if !a.is_zero() {
            prop_assert_eq!(BigUint::ratio(&a, &a), 1.0);
            let r = BigUint::ratio(&a.mul_u64(3), &a);
            prop_assert!((r - 3.0).abs() < 1e-15);
        }
    }

    #[test]
    fn random_below_is_below(x in limbs(), seed in any::<u64>()) {
        let x = from_limbs(&x);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        match x.random_below(&mut rng) {
            None => prop_assert!(x.is_zero()),
            Some(r) => prop_assert!(r < x),
        }
    }
}

#[test]
fn binomials_match_pascal_in_u128() {
    // Pascal's triangle in u128 is exact up to n = 127 for all k (C(127, 63) < 2^127).
    let mut row: Vec<u128> = vec![1];
    for n in 0u64..=127 {
        let table = BigUint::binomial_range(n, 0, n);
        assert_eq!(table.len() as u64, n + 1);
        for (k, &c) in row.iter().enumerate() {
            assert_eq!(
                BigUint::binomial(n, k as u64).to_u128(),
                Some(c),
                "C({n},{k})"
            );
            assert_eq!(table[k].to_u128(), Some(c));
        }
        assert!(BigUint::binomial(n, n + 1).is_zero());
        let mut next = vec![1u128; row.len() + 1];
        for k in 1..row.len() {
            next[k] = row[k - 1] + row[k];
        }
        row = next;
    }
    // binomial_range past n gives zeros.
    let r = BigUint::binomial_range(5, 3, 8);
    let got: Vec<u64> = r.iter().map(|x| x.to_u64().unwrap()).collect();
    assert_eq!(got, vec![10, 5, 1, 0, 0, 0]);
}

#[test]
fn big_binomials_satisfy_pascal() {
    // Small n (several steps per multiplier), a 255x255 board, and n past 2^32 (one step).
    for n in [200u64, 480, 1000, 65_025, 1 << 40] {
        for k in [1u64, 2, 3, 50, 99, 1001, n / 2] {
            if k > n || k > 5000 && n > 100_000 {
                continue;
            }
            let lhs = BigUint::binomial(n, k);
            let rhs = BigUint::binomial(n - 1, k - 1).add(&BigUint::binomial(n - 1, k));
            assert_eq!(lhs, rhs, "C({n},{k})");
            if n < 100_000 && n - k >= 3 {
                // Symmetry, by three steps up from C(n, n - k - 3) to C(n, n - k): a path
                // that `binomial(n, k)` itself (which computes C(n, min(k, n - k))) never takes.
                let up = BigUint::binomial_range(n, n - k - 3, n - k);
                assert_eq!(up.last(), Some(&lhs), "C({n},{}) stepwise", n - k);
            }
            // One step at a time from C(n, k - 3).
            let steps = BigUint::binomial_range(n, k.saturating_sub(3), k);
            assert_eq!(steps.last(), Some(&lhs), "C({n},{k}) stepwise");
        }
    }
}

#[test]
fn expert_board_count() {
    // C(480, 99): magnitude and leading digits from an independent sum of logarithms.
    let c = BigUint::binomial(480, 99);
    let log10: f64 = (1..=99u32)
        .map(|i| (f64::from(381 + i) / f64::from(i)).log10())
        .sum();
    let s = c.to_string();
    assert_eq!(s.len(), log10.floor() as usize + 1);
    assert_eq!(s.len(), 105); // ~5.6e104
    let leading = 10f64.powf(log10.fract()); // in [1, 10)
    let ours: f64 = s[..12].parse::<f64>().unwrap() / 1e11;
    assert!(
        (ours - leading).abs() < 1e-9 * leading,
        "{ours} vs {leading}"
    );
    assert!(c.to_u128().is_none());
    assert!((c.to_f64().log10() - log10).abs() < 1e-12);
    // Exactness: C(480,99) * 99! * 381! == 480!, checked via C(480,99) * 100 / 382 = C(480,100)...
    let mut next = c.mul_u64(381);
    assert_eq!(next.div_rem_u64_assign(100), 0);
    assert_eq!(next, BigUint::binomial(480, 100));
}
