//! Exactly-uniform sampling of solutions.

use rand::{Rng, RngExt};

use crate::count::{Dist, FreeWeight, Prepared, combining_index, for_combining, prepare, tails};
use crate::{BigUint, BoolCsp, Budget, CspError};

/// A reusable exactly-uniform sampler: the counting work is done once by [`Sampler::new`],
/// each [`Sampler::sample`] then costs one (early-stopping) re-enumeration per component.
#[derive(Debug, Clone)]
pub struct Sampler {
    prep: Prepared,
    /// `W_c`: weighted number of assignments of component `c` by number of trues.
    comps: Vec<Dist>,
    /// `suf[c].get(s)`: number of completions of components `c..` and the free variables
    /// when the components before `c` hold `s` trues (one entry, at 0, without a total,
    /// when the components are independent).
    suf: Vec<Dist>,
    solutions: BigUint,
    num_vars: usize,
}

impl Sampler {
    /// Counts the solutions of `csp`, ready to sample.
    ///
    /// # Errors
    /// As [`analyze`](crate::analyze): [`CspError::Inconsistent`] if there is no solution,
    /// [`CspError::BudgetExceeded`] if a component is too large to enumerate.
    pub fn new(csp: &BoolCsp, budget: &Budget) -> Result<Sampler, CspError> {
        let prep = prepare(csp)?;
        let mut comps = Vec::with_capacity(prep.components.len());
        for c in &prep.components {
            comps.push(c.count(budget.max_nodes, prep.max_trues(), false)?.0);
        }
        let combined = for_combining(&comps, prep.total_rem);
        let f = FreeWeight::for_components(prep.free_vars.len(), prep.total_rem, &combined);
        let suf = tails(&combined, &f);
        let solutions = suf[0].get(0).clone();
        if solutions.is_zero() {
            return Err(CspError::Inconsistent);
        }
        Ok(Sampler {
            prep,
            comps,
            suf,
            solutions,
            num_vars: csp.num_vars(),
        })
    }

    /// The exact number of solutions.
    pub fn solutions(&self) -> &BigUint {
        &self.solutions
    }

    /// One exactly-uniform random solution (one `bool` per variable). Uses only `rng`, so it
    /// is deterministic for a given generator state.
    ///
    /// # Errors
    /// [`CspError::Inconsistent`] only if the internal counts were inconsistent (a bug).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<Vec<bool>, CspError> {
        let mut out = vec![false; self.num_vars];
        for (v, val) in self.prep.values.iter().enumerate() {
            if let Some(b) = val {
                out[v] = *b;
            }
        }
        let mut s = 0usize;
        let mut tmp = BigUint::zero();
        let at = |s: usize| combining_index(self.prep.total_rem, s);
        for (c, comp) in self.prep.components.iter().enumerate() {
            // Number of trues of this component, proportional to W_c[m] · suf[c+1][s + m].
            let w = &self.comps[c];
            let r = self.suf[c]
                .get(at(s))
                .random_below(rng)
                .ok_or(CspError::Inconsistent)?;
            let mut cum = BigUint::zero();
            let mut chosen = None;
            for (i, x) in w.vals.iter().enumerate() {
                x.mul_into(self.suf[c + 1].get(at(s + w.off + i)), &mut tmp);
                cum.add_assign(&tmp);
                if r < cum {
                    chosen = Some(w.off + i);
                    break;
                }
            }
            let m = chosen.ok_or(CspError::Inconsistent)?;
            s += m;
            // One box assignment with m trues, proportional to its weight.
            let r = w.vals[m - w.off]
                .random_below(rng)
                .ok_or(CspError::Inconsistent)?;
            let mut cum = BigUint::zero();
            let mut js: Option<Vec<u32>> = None;
            comp.enumerate(u64::MAX, m, |cur, mm, weight| {
                if mm != m {
                    return true;
                }
                cum.add_assign(weight);
                if r < cum {
                    js = Some(cur.to_vec());
                    return false;
                }
                true
            })?;
            let js = js.ok_or(CspError::Inconsistent)?;
            for (vars, &j) in comp.boxes.iter().zip(&js) {
                choose_true(vars, j as usize, &mut out, rng);
            }
        }
        let free = &self.prep.free_vars;
        match self.prep.total_rem {
            Some(rem) => {
                let t = (rem as usize)
                    .checked_sub(s)
                    .filter(|&t| t <= free.len())
                    .ok_or(CspError::Inconsistent)?;
                choose_true(free, t, &mut out, rng);
            }
            None => {
                for &v in free {
                    out[v] = rng.random::<bool>();
                }
            }
        }
        Ok(out)
    }
}

/// Sets a uniformly random `k`-subset of `vars` to true.
fn choose_true<R: Rng + ?Sized>(vars: &[usize], k: usize, out: &mut [bool], rng: &mut R) {
    let mut pool = vars.to_vec();
    for &v in partial_shuffle(&mut pool, k, rng) {
        out[v] = true;
    }
}

/// Moves a uniformly random `k`-subset of `pool` (in random order) to its front and returns
/// it: the first `k` steps of a Fisher-Yates shuffle. `k` must not exceed `pool.len()`.
pub(crate) fn partial_shuffle<'a, T, R: Rng + ?Sized>(
    pool: &'a mut [T],
    k: usize,
    rng: &mut R,
) -> &'a [T] {
    for i in 0..k {
        let j = rng.random_range(i..pool.len());
        pool.swap(i, j);
    }
    &pool[..k]
}

/// One exactly-uniform random solution of `csp`. To draw many, build a [`Sampler`] once.
///
/// # Errors
/// As [`Sampler::new`].
pub fn sample<R: Rng + ?Sized>(
    csp: &BoolCsp,
    budget: &Budget,
    rng: &mut R,
) -> Result<Vec<bool>, CspError> {
    Sampler::new(csp, budget)?.sample(rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Without a total the components are independent, and every completion table holds one
    /// entry. (Indexed by the trues before each component, the tables of 300 components with
    /// a 20,000-bit weight for the free variables held 45,000 copies of it.)
    #[test]
    fn independent_components_keep_one_completion_each() {
        let k = 300;
        let mut csp = BoolCsp::new(3 * k + 20_000);
        for i in 0..k {
            csp.exactly(&[3 * i, 3 * i + 1], 1).unwrap();
            csp.exactly(&[3 * i + 1, 3 * i + 2], 1).unwrap();
        }
        let sampler = Sampler::new(&csp, &Budget::default()).unwrap();
        assert!(sampler.suf.iter().all(|t| t.vals.len() == 1));
        // Two solutions per component, any values elsewhere.
        let expected = &BigUint::pow2(k as u64) * &BigUint::pow2(20_000);
        assert_eq!(sampler.solutions(), &expected);
        assert_eq!(crate::count(&csp, &Budget::default()).unwrap(), expected);
        let a = crate::analyze(&csp, &Budget::default()).unwrap();
        assert_eq!(a.solutions, expected);
        assert!(a.probabilities.iter().all(|&p| p == 0.5));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let s = sampler.sample(&mut rng).unwrap();
        for i in 0..k {
            assert_ne!(s[3 * i], s[3 * i + 1]);
            assert_eq!(s[3 * i], s[3 * i + 2]);
        }
    }
}
