//! A minimal exact unsigned big integer, just enough for counting solutions.
//!
//! Solution counts of Minesweeper-sized problems overflow every primitive integer (an expert
//! board alone has `C(480, 99) ≈ 5.6 · 10^104` mine layouts), so counts are kept exact in a
//! [`BigUint`] and only turned into `f64` at the very end ([`BigUint::ratio`]).
//!
//! The representation is a little-endian vector of `u64` limbs without high zero limbs, so the
//! derived equality is numeric equality. Only what the counting code needs is implemented:
//! addition, multiplication (by a `u64` or by another `BigUint`), exact division by a `u64`,
//! subtraction, comparisons, binomial coefficients, conversions and decimal display.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Add, AddAssign, Deref, DerefMut, Mul};

/// Limbs kept inline (no allocation) up to this many: 256 bits covers almost every count of a
/// Minesweeper position except the whole-board binomials.
const INLINE: usize = 4;

/// A small vector of limbs: inline up to [`INLINE`] limbs, on the heap beyond.
#[derive(Clone)]
enum Limbs {
    Inline { len: u8, buf: [u64; INLINE] },
    Heap(Vec<u64>),
}

impl Limbs {
    const fn new() -> Limbs {
        Limbs::Inline {
            len: 0,
            buf: [0; INLINE],
        }
    }

    fn from_slice(x: &[u64]) -> Limbs {
        let mut l = Limbs::new();
        l.extend_from_slice(x);
        l
    }

    /// Resizes, filling new limbs with 0.
    fn resize(&mut self, n: usize) {
        match self {
            Limbs::Inline { len, buf } => {
                if n <= INLINE {
                    for x in &mut buf[(*len as usize).min(n)..n] {
                        *x = 0;
                    }
                    *len = n as u8;
                } else {
                    let mut v = Vec::with_capacity(n.max(2 * INLINE));
                    v.extend_from_slice(&buf[..*len as usize]);
                    v.resize(n, 0);
                    *self = Limbs::Heap(v);
                }
            }
            Limbs::Heap(v) => v.resize(n, 0),
        }
    }

    fn push(&mut self, x: u64) {
        let n = self.len();
        self.resize(n + 1);
        self[n] = x;
    }

    fn truncate(&mut self, n: usize) {
        match self {
            Limbs::Inline { len, .. } => {
                if n < *len as usize {
                    *len = n as u8;
                }
            }
            Limbs::Heap(v) => v.truncate(n),
        }
    }

    fn clear(&mut self) {
        self.truncate(0);
    }

    fn extend_from_slice(&mut self, x: &[u64]) {
        let n = self.len();
        self.resize(n + x.len());
        self[n..].copy_from_slice(x);
    }

    fn assign(&mut self, x: &[u64]) {
        self.clear();
        self.extend_from_slice(x);
    }
}

impl Deref for Limbs {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        match self {
            Limbs::Inline { len, buf } => &buf[..*len as usize],
            Limbs::Heap(v) => v,
        }
    }
}

impl DerefMut for Limbs {
    fn deref_mut(&mut self) -> &mut [u64] {
        match self {
            Limbs::Inline { len, buf } => &mut buf[..*len as usize],
            Limbs::Heap(v) => v,
        }
    }
}

/// An arbitrary-precision unsigned integer (little-endian `u64` limbs, stored inline without
/// allocation up to 256 bits).
pub struct BigUint {
    /// Little-endian limbs; never ends with a zero limb (zero has no limbs).
    limbs: Limbs,
}

impl Default for BigUint {
    fn default() -> Self {
        BigUint::zero()
    }
}

impl PartialEq for BigUint {
    fn eq(&self, other: &Self) -> bool {
        *self.limbs == *other.limbs
    }
}

impl Eq for BigUint {}

impl Hash for BigUint {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (*self.limbs).hash(state);
    }
}

impl Clone for BigUint {
    fn clone(&self) -> Self {
        BigUint {
            limbs: self.limbs.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        // Reuse the storage: the counting loops copy numbers into scratch buffers.
        self.limbs.assign(&source.limbs);
    }
}

impl BigUint {
    /// The number 0.
    pub const fn zero() -> BigUint {
        BigUint {
            limbs: Limbs::new(),
        }
    }

    /// The number 1.
    pub fn one() -> BigUint {
        BigUint::from_u64(1)
    }

    /// Converts a `u64`.
    pub fn from_u64(x: u64) -> BigUint {
        if x == 0 {
            BigUint::zero()
        } else {
            BigUint {
                limbs: Limbs::from_slice(&[x]),
            }
        }
    }

    /// Converts a `u128`.
    pub fn from_u128(x: u128) -> BigUint {
        let mut r = BigUint {
            limbs: Limbs::from_slice(&[x as u64, (x >> 64) as u64]),
        };
        r.normalize();
        r
    }

    /// `2^e`, held in `e / 64 + 1` limbs: an exponent beyond memory ends as a failed
    /// allocation does (the process aborts).
    pub fn pow2(e: u64) -> BigUint {
        let idx = (e / 64) as usize;
        let mut limbs = Limbs::new();
        limbs.resize(idx + 1);
        limbs[idx] = 1 << (e % 64);
        BigUint { limbs }
    }

    fn normalize(&mut self) {
        let mut n = self.limbs.len();
        while n > 0 && self.limbs[n - 1] == 0 {
            n -= 1;
        }
        self.limbs.truncate(n);
    }

    /// Whether the number is 0.
    #[must_use]
    pub fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// Whether the number is 1.
    #[must_use]
    pub fn is_one(&self) -> bool {
        self.limbs.len() == 1 && self.limbs[0] == 1
    }

    /// Sets the number to 0, keeping the allocation.
    pub fn set_zero(&mut self) {
        self.limbs.clear();
    }

    /// Number of significant bits (0 for 0).
    #[must_use]
    pub fn bits(&self) -> u64 {
        match self.limbs.last() {
            None => 0,
            Some(&top) => self.limbs.len() as u64 * 64 - u64::from(top.leading_zeros()),
        }
    }

    /// The value as a `u64`, if it fits.
    pub fn to_u64(&self) -> Option<u64> {
        match self.limbs.len() {
            0 => Some(0),
            1 => Some(self.limbs[0]),
            _ => None,
        }
    }

    /// The value as a `u128`, if it fits.
    pub fn to_u128(&self) -> Option<u128> {
        match self.limbs.len() {
            0 => Some(0),
            1 => Some(u128::from(self.limbs[0])),
            2 => Some(u128::from(self.limbs[0]) | (u128::from(self.limbs[1]) << 64)),
            _ => None,
        }
    }

    /// `self + other`.
    #[must_use]
    pub fn add(&self, other: &BigUint) -> BigUint {
        let mut r = self.clone();
        r.add_assign(other);
        r
    }

    /// `self += other`.
    pub fn add_assign(&mut self, other: &BigUint) {
        if self.limbs.len() < other.limbs.len() {
            self.limbs.resize(other.limbs.len());
        }
        let mut carry = false;
        for (i, &o) in other.limbs.iter().enumerate() {
            let (s1, c1) = self.limbs[i].overflowing_add(o);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            self.limbs[i] = s2;
            carry = c1 || c2;
        }
        let mut i = other.limbs.len();
        while carry {
            if i == self.limbs.len() {
                self.limbs.push(1);
                break;
            }
            let (s, c) = self.limbs[i].overflowing_add(1);
            self.limbs[i] = s;
            carry = c;
            i += 1;
        }
    }

    /// `self += a * m` without allocating a temporary (the hot operation of the counter).
    pub fn add_mul_u64_assign(&mut self, a: &BigUint, m: u64) {
        if m == 0 || a.is_zero() {
            return;
        }
        if self.limbs.len() < a.limbs.len() + 1 {
            self.limbs.resize(a.limbs.len() + 1);
        }
        let mut carry: u128 = 0;
        for (i, &x) in a.limbs.iter().enumerate() {
            let t = u128::from(self.limbs[i]) + u128::from(x) * u128::from(m) + carry;
            self.limbs[i] = t as u64;
            carry = t >> 64;
        }
        let mut i = a.limbs.len();
        while carry != 0 {
            if i == self.limbs.len() {
                self.limbs.push(0);
            }
            let t = u128::from(self.limbs[i]) + carry;
            self.limbs[i] = t as u64;
            carry = t >> 64;
            i += 1;
        }
        self.normalize();
    }

    /// `self - other`, or `None` if `other > self`.
    pub fn checked_sub(&self, other: &BigUint) -> Option<BigUint> {
        if *self < *other {
            return None;
        }
        let mut r = self.clone();
        let mut borrow = false;
        for i in 0..r.limbs.len() {
            let o = other.limbs.get(i).copied().unwrap_or(0);
            if o == 0 && !borrow && i >= other.limbs.len() {
                break;
            }
            let (d1, b1) = r.limbs[i].overflowing_sub(o);
            let (d2, b2) = d1.overflowing_sub(u64::from(borrow));
            r.limbs[i] = d2;
            borrow = b1 || b2;
        }
        r.normalize();
        Some(r)
    }

    /// `self * m`.
    #[must_use]
    pub fn mul_u64(&self, m: u64) -> BigUint {
        let mut r = self.clone();
        r.mul_u64_assign(m);
        r
    }

    /// `self *= m`.
    pub fn mul_u64_assign(&mut self, m: u64) {
        if m == 0 {
            self.limbs.clear();
            return;
        }
        let mut carry: u128 = 0;
        for limb in self.limbs.iter_mut() {
            let t = u128::from(*limb) * u128::from(m) + carry;
            *limb = t as u64;
            carry = t >> 64;
        }
        if carry != 0 {
            self.limbs.push(carry as u64);
        }
    }

    /// `self * other`.
    #[must_use]
    pub fn mul(&self, other: &BigUint) -> BigUint {
        let mut out = BigUint::zero();
        self.mul_into(other, &mut out);
        out
    }

    /// Writes `self * other` into `out`, reusing `out`'s allocation.
    pub fn mul_into(&self, other: &BigUint, out: &mut BigUint) {
        out.limbs.clear();
        if self.is_zero() || other.is_zero() {
            return;
        }
        let (a, b) = if self.limbs.len() >= other.limbs.len() {
            (&self.limbs, &other.limbs)
        } else {
            (&other.limbs, &self.limbs)
        };
        if b.len() == 1 {
            out.limbs.extend_from_slice(a);
            out.mul_u64_assign(b[0]);
            return;
        }
        out.limbs.resize(a.len() + b.len());
        for (i, &x) in a.iter().enumerate() {
            let mut carry: u128 = 0;
            for (j, &y) in b.iter().enumerate() {
                // (2^64-1) + (2^64-1)^2 + (2^64-1) = 2^128 - 1: never overflows.
                let t = u128::from(out.limbs[i + j]) + u128::from(x) * u128::from(y) + carry;
                out.limbs[i + j] = t as u64;
                carry = t >> 64;
            }
            out.limbs[i + b.len()] = carry as u64;
        }
        out.normalize();
    }

    /// Divides in place by `d` and returns the remainder.
    ///
    /// # Panics
    /// If `d == 0`.
    pub fn div_rem_u64_assign(&mut self, d: u64) -> u64 {
        assert!(d != 0, "BigUint division by zero");
        let mut rem: u128 = 0;
        for limb in self.limbs.iter_mut().rev() {
            let cur = (rem << 64) | u128::from(*limb);
            *limb = (cur / u128::from(d)) as u64;
            rem = cur % u128::from(d);
        }
        self.normalize();
        rem as u64
    }

    /// The binomial coefficient `C(n, k)` (0 when `k > n`).
    ///
    /// Small `k` walk from `C(n, 0)`; from `k = 256` on, with `n` up to 2^20 (or up to 2^24
    /// when `k` is at least `n / 64`: the sieve of primes it needs holds a byte per number up
    /// to `n`, worth it only for a long walk), the prime factorisation is multiplied out
    /// instead, which needs no long division: `C(65025, 12000)` takes about 1/60 of the
    /// plain walk's time (benchmark `minesweeper/binomials`). For large `k` the time grows
    /// with the square of the result's length, about `n` bits when `k` is near `n / 2`.
    pub fn binomial(n: u64, k: u64) -> BigUint {
        if k > n {
            return BigUint::zero();
        }
        let k = k.min(n - k);
        if k >= 256 && (n <= 1 << 20 || (n <= 1 << 24 && k >= n / 64)) {
            return BigUint::binomial_by_primes(n, k);
        }
        BigUint::binomial_by_steps(n, k)
    }

    /// `C(n, k)` for `k <= n - k`, walking from `C(n, 0)` to `C(n, k)`.
    fn binomial_by_steps(n: u64, k: u64) -> BigUint {
        let mut r = BigUint::one();
        let mut i = 0;
        while i < k {
            // r = C(n, i) * (n - i) ... (n - j + 1) / ((i + 1) ... j) = C(n, j): the division
            // is exact. As many steps as fit in a 64-bit multiplier and a 32-bit divisor are
            // taken at once, so the long number is walked a few times less often.
            let (mut num, mut den) = (n - i, i + 1);
            i += 1;
            while i < k {
                match (num.checked_mul(n - i), den.checked_mul(i + 1)) {
                    (Some(a), Some(b)) if b <= u64::from(u32::MAX) => (num, den) = (a, b),
                    _ => break,
                }
                i += 1;
            }
            r.mul_u64_assign(num);
            r.div_rem_u64_assign(den);
        }
        r
    }

    /// `C(n, k)` from its prime factorisation, with multiplications only: the exponent of a
    /// prime `p` is `sum over powers q of p of (n / q - k / q - (n - k) / q)` (Legendre's
    /// formula). For a large `k` this avoids the `k` long divisions of the walk, which
    /// dominate the time (a 255x255 board with 12,000 mines needs `C(65025, 12000)`).
    fn binomial_by_primes(n: u64, k: u64) -> BigUint {
        let mut composite = vec![false; n as usize + 1];
        let mut r = BigUint::one();
        let mut acc: u64 = 1;
        for p in 2..=n {
            if composite[p as usize] {
                continue;
            }
            let mut m = p * p;
            while m <= n {
                composite[m as usize] = true;
                m += p;
            }
            let mut q = p;
            let mut e = 0;
            loop {
                e += n / q - k / q - (n - k) / q;
                match q.checked_mul(p) {
                    Some(next) if next <= n => q = next,
                    _ => break,
                }
            }
            for _ in 0..e {
                acc = match acc.checked_mul(p) {
                    Some(x) => x,
                    None => {
                        r.mul_u64_assign(acc);
                        p
                    }
                };
            }
        }
        r.mul_u64_assign(acc);
        r
    }

    /// The binomial coefficients `C(n, k)` for `k` in `lo..=hi` (empty when `lo > hi`), one
    /// entry per `k` (zero past `n`): a range longer than memory can hold ends as a failed
    /// allocation does (an abort, or a capacity-overflow panic when its size in bytes
    /// overflows).
    pub fn binomial_range(n: u64, lo: u64, hi: u64) -> Vec<BigUint> {
        if lo > hi {
            return Vec::new();
        }
        // The coefficients that can be nonzero: k up to n.
        let top = hi.min(n);
        let mut out = Vec::new();
        if lo <= top {
            out.reserve(usize::try_from(top - lo).map_or(0, |l| l.saturating_add(1)));
            if n < 64 {
                // Every C(n, k) fits in a u64 and C(n, k) * (n - k) in a u128.
                let mut c: u128 = 1;
                for k in 0..=top {
                    if k >= lo {
                        out.push(BigUint::from_u128(c));
                    }
                    c = c * u128::from(n - k) / u128::from(k + 1);
                }
            } else {
                let mut cur = BigUint::binomial(n, lo);
                out.push(cur.clone());
                for k in lo..top {
                    // C(n, k + 1) = C(n, k) * (n - k) / (k + 1), exact.
                    cur.mul_u64_assign(n - k);
                    cur.div_rem_u64_assign(k + 1);
                    out.push(cur.clone());
                }
            }
        }
        let zeros = u128::from(hi - lo) + 1 - out.len() as u128;
        let zeros = usize::try_from(zeros).unwrap_or(usize::MAX);
        out.resize_with(out.len().saturating_add(zeros), BigUint::zero);
        out
    }

    /// The 64 most significant bits and the shift: `self ≈ top * 2^shift`, where `top` is the
    /// value truncated to its 64 leading bits (exact when the number has at most 64 bits).
    fn top64(&self) -> (u64, u64) {
        let n = self.bits();
        if n <= 64 {
            return (self.limbs.first().copied().unwrap_or(0), 0);
        }
        let shift = n - 64;
        let idx = (shift / 64) as usize;
        let off = shift % 64;
        let mut top = self.limbs[idx] >> off;
        if off > 0 {
            top |= self.limbs[idx + 1] << (64 - off);
        }
        (top, shift)
    }

    /// The nearest `f64` (within a couple of ulps; `inf` beyond the `f64` range).
    #[must_use]
    pub fn to_f64(&self) -> f64 {
        let (top, shift) = self.top64();
        ldexp(top as f64, shift as i64)
    }

    /// `a / b` as an `f64`, accurate to a few ulps even when `a` and `b` are far beyond the
    /// range of `f64` (both are reduced to their 64 leading bits first). `NaN` if `b` is 0.
    pub fn ratio(a: &BigUint, b: &BigUint) -> f64 {
        if b.is_zero() {
            return f64::NAN;
        }
        if a.is_zero() {
            return 0.0;
        }
        let (ta, sa) = a.top64();
        let (tb, sb) = b.top64();
        ldexp(ta as f64 / tb as f64, sa as i64 - sb as i64)
    }

    /// A uniformly random number in `0..self`, or `None` if `self` is 0. Uses rejection
    /// sampling on `bits()` random bits (fewer than two draws on average).
    pub fn random_below<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Option<BigUint> {
        if self.is_zero() {
            return None;
        }
        let n = self.bits();
        let nl = self.limbs.len();
        let top_bits = n - (nl as u64 - 1) * 64;
        let mask = if top_bits == 64 {
            u64::MAX
        } else {
            (1u64 << top_bits) - 1
        };
        loop {
            let mut r = BigUint::zero();
            r.limbs.resize(nl);
            for x in r.limbs.iter_mut() {
                *x = rng.next_u64();
            }
            r.limbs[nl - 1] &= mask;
            r.normalize();
            if r < *self {
                return Some(r);
            }
        }
    }
}

/// `x * 2^e` without intermediate overflow or underflow for moderate `x`.
fn ldexp(mut x: f64, mut e: i64) -> f64 {
    const STEP: i64 = 1000;
    let up = 2f64.powi(STEP as i32);
    let down = 2f64.powi(-STEP as i32);
    while e > STEP {
        x *= up;
        e -= STEP;
        if x.is_infinite() {
            return x;
        }
    }
    while e < -STEP {
        x *= down;
        e += STEP;
        if x == 0.0 {
            return x;
        }
    }
    x * 2f64.powi(e as i32)
}

impl Ord for BigUint {
    fn cmp(&self, other: &Self) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

impl PartialOrd for BigUint {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl From<u64> for BigUint {
    fn from(x: u64) -> Self {
        BigUint::from_u64(x)
    }
}

impl From<u128> for BigUint {
    fn from(x: u128) -> Self {
        BigUint::from_u128(x)
    }
}

impl Add<&BigUint> for &BigUint {
    type Output = BigUint;
    fn add(self, rhs: &BigUint) -> BigUint {
        BigUint::add(self, rhs)
    }
}

impl AddAssign<&BigUint> for BigUint {
    fn add_assign(&mut self, rhs: &BigUint) {
        BigUint::add_assign(self, rhs);
    }
}

impl Mul<&BigUint> for &BigUint {
    type Output = BigUint;
    fn mul(self, rhs: &BigUint) -> BigUint {
        BigUint::mul(self, rhs)
    }
}

impl fmt::Display for BigUint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.pad("0");
        }
        const CHUNK: u64 = 10_000_000_000_000_000_000; // 10^19
        let mut chunks = Vec::new();
        let mut x = self.clone();
        while !x.is_zero() {
            chunks.push(x.div_rem_u64_assign(CHUNK));
        }
        let mut s = String::with_capacity(chunks.len() * 19);
        let mut iter = chunks.iter().rev();
        if let Some(first) = iter.next() {
            s.push_str(&first.to_string());
        }
        for c in iter {
            s.push_str(&format!("{c:019}"));
        }
        f.pad(&s)
    }
}

impl fmt::Debug for BigUint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BigUint({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values() {
        assert_eq!(BigUint::zero().to_string(), "0");
        assert_eq!(BigUint::one().to_string(), "1");
        assert_eq!(BigUint::from_u64(0), BigUint::zero());
        assert_eq!(BigUint::from_u128(0), BigUint::zero());
        assert_eq!(BigUint::pow2(64).to_u128(), Some(1u128 << 64));
        assert_eq!(BigUint::pow2(200).bits(), 201);
        assert_eq!(BigUint::from_u64(10).to_string(), "10");
        assert_eq!(
            BigUint::from_u128(u128::MAX).to_string(),
            u128::MAX.to_string()
        );
        assert_eq!(BigUint::binomial(5, 7), BigUint::zero());
        assert_eq!(BigUint::binomial(0, 0), BigUint::one());
        assert_eq!(BigUint::binomial(52, 5).to_u64(), Some(2_598_960));
    }

    #[test]
    fn binomials_by_primes_equal_the_walk() {
        for n in [64u64, 65, 100, 481, 1000, 4096, 65_025] {
            for k in [
                1u64, 2, 63, 64, 65, 99, 127, 200, 480, 500, 2048, 12_000, 32_512,
            ] {
                if 2 * k <= n {
                    assert_eq!(
                        BigUint::binomial_by_primes(n, k),
                        BigUint::binomial_by_steps(n, k),
                        "C({n},{k})"
                    );
                }
            }
        }
    }

    /// Past 2^20 the primes are used for large `k` only (the sieve of 2^21 bytes is worth it
    /// for a walk of 40,000 steps, not of 300).
    #[test]
    fn large_binomials_agree_with_the_walk() {
        let n = 1u64 << 21;
        for k in [300, 40_000] {
            let walk = BigUint::binomial_by_steps(n, k);
            assert_eq!(BigUint::binomial_by_primes(n, k), walk, "C({n},{k})");
            assert_eq!(BigUint::binomial(n, k), walk, "C({n},{k})");
        }
    }

    /// Both ways (below 64 and from 64 on), inside and past `n`, and ranges at the far end
    /// of `u64`, which hold zeros only (the walk used to count up to them).
    #[test]
    fn binomial_ranges_are_the_coefficients_in_order() {
        for n in [0u64, 1, 5, 63, 64, 70, 300] {
            for (lo, hi) in [
                (0, 0),
                (0, 3),
                (2, 9),
                (n.saturating_sub(2), n + 2),
                (n + 1, n + 4),
            ] {
                let range = BigUint::binomial_range(n, lo, hi);
                let expected: Vec<BigUint> = (lo..=hi).map(|k| BigUint::binomial(n, k)).collect();
                assert_eq!(range, expected, "C({n}, {lo}..={hi})");
            }
        }
        assert!(BigUint::binomial_range(10, 5, 4).is_empty());
        let far = BigUint::binomial_range(100, u64::MAX - 2, u64::MAX);
        assert_eq!(far, vec![BigUint::zero(); 3]);
        assert_eq!(
            BigUint::binomial_range(10, u64::MAX, u64::MAX),
            vec![BigUint::zero()]
        );
    }

    #[test]
    fn ratio_and_f64() {
        let a = BigUint::pow2(3000);
        let b = BigUint::pow2(2999);
        assert_eq!(BigUint::ratio(&a, &b), 2.0);
        assert_eq!(BigUint::ratio(&b, &a), 0.5);
        assert!(a.to_f64().is_infinite());
        assert_eq!(BigUint::pow2(1000).to_f64(), 2f64.powi(1000));
        assert!(BigUint::ratio(&a, &BigUint::zero()).is_nan());
        assert_eq!(BigUint::ratio(&BigUint::zero(), &a), 0.0);
    }
}
