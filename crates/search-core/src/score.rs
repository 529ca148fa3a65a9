//! Search scores with proven results encoded by their distance.
//!
//! A bare integer cannot tell "probably winning" from "wins in 7"; searches need the second to
//! prefer the fastest win and the slowest loss, and memo tables need it to stay correct when a
//! proven result is reused at another distance from the root. [`Score`] reserves the band above
//! [`Score::MAX_HEURISTIC`] for proven wins and losses, counted in plies from the root. The
//! band holds distances up to 99,999 plies: a longer one is recorded as 99,999 (the result
//! stays proven, and its distance then reads 99,999).

use std::fmt;
use std::ops::Neg;

use crate::Outcome;

/// A score from the point of view of the side to move. Higher is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Score(pub i32);

impl Score {
    /// A proven win at the root (zero plies away).
    pub const WIN: Score = Score(1_000_000);
    /// A proven loss at the root.
    pub const LOSS: Score = Score(-1_000_000);
    /// A draw, or a heuristically even position.
    pub const DRAW: Score = Score(0);
    /// The largest heuristic magnitude; anything beyond is a proven result.
    pub const MAX_HEURISTIC: i32 = 900_000;
    /// Larger than any score: the initial window bound.
    pub const INFINITY: Score = Score(1_000_001);

    /// A win `plies` plies from the root (at most 99,999: further is recorded as 99,999).
    #[must_use]
    pub fn win_in(plies: u32) -> Score {
        Score(Self::WIN.0 - plies.min(Self::mate_band()) as i32)
    }

    /// A loss `plies` plies from the root.
    #[must_use]
    pub fn loss_in(plies: u32) -> Score {
        Score(-Self::win_in(plies).0)
    }

    /// The score of a finished game `ply` plies from the root.
    #[must_use]
    pub fn from_outcome(outcome: Outcome, ply: u32) -> Score {
        match outcome {
            Outcome::Win => Score::win_in(ply),
            Outcome::Draw => Score::DRAW,
            Outcome::Loss => Score::loss_in(ply),
        }
    }

    /// A heuristic value clamped into the heuristic band.
    #[must_use]
    pub fn heuristic(value: i32) -> Score {
        Score(value.clamp(-Self::MAX_HEURISTIC, Self::MAX_HEURISTIC))
    }

    /// Whether this is a proven win or loss.
    #[must_use]
    pub fn is_proven(self) -> bool {
        self.0.unsigned_abs() > Self::MAX_HEURISTIC.unsigned_abs()
    }

    /// The proven outcome, if any: `Some(Win)` / `Some(Loss)`; `None` for heuristic or draw scores.
    #[must_use]
    pub fn proven_outcome(self) -> Option<Outcome> {
        if self.0 > Self::MAX_HEURISTIC {
            Some(Outcome::Win)
        } else if self.0 < -Self::MAX_HEURISTIC {
            Some(Outcome::Loss)
        } else {
            None
        }
    }

    /// Plies to the end of the game from the root for a proven score (`None` for the
    /// scores beyond [`Score::WIN`], such as [`Score::INFINITY`], which end no game).
    #[must_use]
    pub fn plies_to_end(self) -> Option<u32> {
        if !self.is_proven() {
            return None;
        }
        Self::WIN
            .0
            .unsigned_abs()
            .checked_sub(self.0.unsigned_abs())
    }

    /// Converts a score relative to the root into one relative to a node `ply` plies deep,
    /// for storing in a memo table (proven results become distances from that node).
    #[must_use]
    pub fn to_memo(self, ply: u32) -> Score {
        let ply = ply.min(Self::mate_band()) as i32;
        if self.0 > Self::MAX_HEURISTIC {
            Score(self.0.saturating_add(ply))
        } else if self.0 < -Self::MAX_HEURISTIC {
            Score(self.0.saturating_sub(ply))
        } else {
            self
        }
    }

    /// The inverse of [`Score::to_memo`].
    #[must_use]
    pub fn from_memo(self, ply: u32) -> Score {
        let ply = ply.min(Self::mate_band()) as i32;
        if self.0 > Self::MAX_HEURISTIC {
            Score((self.0 - ply).max(Self::MAX_HEURISTIC + 1))
        } else if self.0 < -Self::MAX_HEURISTIC {
            Score((self.0 + ply).min(-Self::MAX_HEURISTIC - 1))
        } else {
            self
        }
    }

    fn mate_band() -> u32 {
        (Self::WIN.0 - Self::MAX_HEURISTIC - 1) as u32
    }
}

impl Neg for Score {
    type Output = Score;
    fn neg(self) -> Score {
        // Saturating, so that `Score(i32::MIN)` (which no search produces) cannot overflow.
        Score(self.0.saturating_neg())
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.proven_outcome(), self.plies_to_end()) {
            (Some(Outcome::Win), Some(n)) => write!(f, "win in {n}"),
            (Some(_), Some(n)) => write!(f, "loss in {n}"),
            _ => write!(f, "{}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_scores_saturate_instead_of_overflowing() {
        assert_eq!(-Score(i32::MIN), Score(i32::MAX));
        assert_eq!(Score(i32::MAX).to_memo(5), Score(i32::MAX));
        assert_eq!(Score(i32::MIN).to_memo(5), Score(i32::MIN));
        // Beyond a win or a loss in 0 plies: proven, but no number of plies.
        for s in [
            Score(i32::MIN),
            -Score::INFINITY,
            Score::INFINITY,
            Score(i32::MAX),
        ] {
            assert!(s.is_proven());
            assert_eq!(s.plies_to_end(), None);
            assert_eq!(s.to_string(), s.0.to_string());
        }
        assert_eq!(Score::WIN.plies_to_end(), Some(0));
        assert_eq!((-Score::WIN).to_string(), "loss in 0");
        assert_eq!(Score::win_in(7).to_string(), "win in 7");
        assert_eq!(Score(Score::MAX_HEURISTIC).plies_to_end(), None);
    }

    #[test]
    fn memo_round_trip_keeps_distance() {
        for ply in [0, 1, 7, 40] {
            for s in [
                Score::win_in(12 + ply),
                Score::loss_in(9 + ply),
                Score(123),
                Score(-5),
            ] {
                assert_eq!(s.to_memo(ply).from_memo(ply), s);
            }
        }
        // A win 3 plies below a node 5 deep is a win in 3 from that node...
        assert_eq!(Score::win_in(8).to_memo(5), Score::win_in(3));
        // ...and a win in 5 when reused at ply 2.
        assert_eq!(Score::win_in(3).from_memo(2), Score::win_in(5));
    }

    #[test]
    fn the_heuristic_band_ends_at_max_heuristic() {
        let (top, bottom) = (Score(Score::MAX_HEURISTIC), Score(-Score::MAX_HEURISTIC));
        for s in [top, bottom] {
            assert!(!s.is_proven());
            assert_eq!(s.proven_outcome(), None);
            for ply in [0, 1, 5] {
                assert_eq!(s.to_memo(ply), s, "heuristic scores are stored as they are");
                assert_eq!(s.from_memo(ply), s);
            }
        }
        assert_eq!(
            Score(Score::MAX_HEURISTIC + 1).proven_outcome(),
            Some(Outcome::Win)
        );
        assert_eq!(
            Score(-Score::MAX_HEURISTIC - 1).proven_outcome(),
            Some(Outcome::Loss)
        );
        assert_eq!(Score::heuristic(i32::MIN), bottom);
        assert_eq!(Score::heuristic(-5), Score(-5));
        assert_eq!(Score::LOSS, -Score::WIN);
        assert_eq!(Score::LOSS.proven_outcome(), Some(Outcome::Loss));
        assert_eq!(Score::LOSS.plies_to_end(), Some(0));
        // A proven result reused further from the root than the band reaches stays proven,
        // at the band's far end.
        let far = Score(Score::MAX_HEURISTIC + 1);
        assert_eq!(far.from_memo(10), far);
        assert_eq!((-far).from_memo(10), -far);
        assert_eq!(Score::win_in(3).from_memo(u32::MAX), far);
        // The band holds 99,999 distances: a win further away than that is still a win.
        assert_eq!(Score::win_in(u32::MAX), far);
        assert_eq!(Score::win_in(99_999), far);
        assert_eq!(Score::win_in(99_998), Score(far.0 + 1));
        assert_eq!(Score::loss_in(u32::MAX), -far);
        assert_eq!(Score::WIN.to_memo(u32::MAX), Score(Score::WIN.0 + 99_999));
    }

    #[test]
    fn ordering_and_display() {
        assert!(Score::win_in(3) > Score::win_in(5));
        assert!(Score::loss_in(3) < Score::loss_in(5));
        assert!(Score::loss_in(100) < Score(-Score::MAX_HEURISTIC));
        assert_eq!(Score::heuristic(i32::MAX), Score(Score::MAX_HEURISTIC));
        assert_eq!(Score::win_in(4).to_string(), "win in 4");
        assert_eq!(Score::loss_in(2).to_string(), "loss in 2");
        assert_eq!(Score(17).to_string(), "17");
        assert_eq!(Score::loss_in(6).proven_outcome(), Some(Outcome::Loss));
    }
}
