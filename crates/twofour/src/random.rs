//! Seeded random games.

use rand::{Rng, RngExt};

use crate::position::{Position, PositionError, check_piles};

/// A starting position drawn uniformly from all pile arrays of `piles` piles with 0 to 4 balls
/// each and 2N balls in all (rejection sampling: draw every pile uniformly, keep the arrays with
/// the right total; about one draw in `2.5 * sqrt(2N)` is kept).
///
/// ```
/// use twofour::rand::SeedableRng;
/// let mut rng = twofour::rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
/// let game = twofour::random_game(30, &mut rng).unwrap();
/// assert_eq!(game.piles().len(), 30);
/// ```
///
/// # Errors
/// When `piles` is outside `3..=MAX_PILES`.
pub fn random_game<R: Rng + ?Sized>(piles: usize, rng: &mut R) -> Result<Position, PositionError> {
    // Validate the size first, so the loop below cannot spin on an impossible request and
    // no buffer is sized by an absurd one.
    check_piles(piles)?;
    let mut balls = vec![0u8; piles];
    loop {
        let mut total = 0usize;
        for b in &mut balls {
            *b = rng.random_range(0..=4);
            total += usize::from(*b);
        }
        if total == 2 * piles {
            return Position::new(&balls);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{MAX_PILES, MIN_PILES};
    use rand::SeedableRng;

    #[test]
    fn sizes_outside_the_range_are_errors_before_any_work() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        for piles in [0, MIN_PILES - 1] {
            assert_eq!(
                random_game(piles, &mut rng),
                Err(PositionError::TooFewPiles { piles })
            );
        }
        // Even sizes no buffer could hold are refused, not allocated.
        for piles in [MAX_PILES + 1, 1 << 40, usize::MAX] {
            assert_eq!(
                random_game(piles, &mut rng),
                Err(PositionError::TooManyPiles { piles })
            );
        }
        for piles in [MIN_PILES, MAX_PILES] {
            let game = random_game(piles, &mut rng).unwrap();
            assert_eq!(game.piles().len(), piles);
        }
    }
}
