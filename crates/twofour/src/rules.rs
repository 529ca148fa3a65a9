//! Players, pile kinds and results: the vocabulary of the rules.

use std::fmt;

/// One of the two players. The first player moves first; the second player gets the odd
/// initial two-ball pile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// Player 1, who moves first.
    First,
    /// Player 2.
    Second,
}

impl Player {
    /// The other player.
    #[must_use]
    pub fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }

    /// `1` or `2`, as the olympiad numbers them.
    #[must_use]
    pub fn number(self) -> u8 {
        match self {
            Player::First => 1,
            Player::Second => 2,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::First => "first player",
            Player::Second => "second player",
        })
    }
}

/// What a pile is, as far as the game is concerned: its ball count, and for two-ball piles,
/// the owner. (A two-ball pile always has an owner: the initial ones are dealt out, and a pile
/// reaches two balls only by a move, whose maker takes it.)
///
/// These six kinds are all that matters of a pile, so a position is fully described by how many
/// piles of each kind it has, plus the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pile {
    /// No ball.
    Zero = 0,
    /// One ball.
    One = 1,
    /// Two balls, owned by the first player.
    TwoFirst = 2,
    /// Two balls, owned by the second player.
    TwoSecond = 3,
    /// Three balls.
    Three = 4,
    /// Four balls.
    Four = 5,
}

impl Pile {
    /// All kinds, in index order.
    pub const ALL: [Pile; 6] = [
        Pile::Zero,
        Pile::One,
        Pile::TwoFirst,
        Pile::TwoSecond,
        Pile::Three,
        Pile::Four,
    ];

    /// The number of balls.
    #[must_use]
    pub fn balls(self) -> u8 {
        match self {
            Pile::Zero => 0,
            Pile::One => 1,
            Pile::TwoFirst | Pile::TwoSecond => 2,
            Pile::Three => 3,
            Pile::Four => 4,
        }
    }

    /// The owner of a two-ball pile.
    #[must_use]
    pub fn owner(self) -> Option<Player> {
        match self {
            Pile::TwoFirst => Some(Player::First),
            Pile::TwoSecond => Some(Player::Second),
            _ => None,
        }
    }

    /// The pile with `balls` balls (at most 4) left by a move of `mover`, who takes it if it
    /// holds two. Moves never leave more than 4 balls; larger counts saturate at [`Pile::Four`].
    pub(crate) fn after_move(balls: u8, mover: Player) -> Pile {
        match balls {
            0 => Pile::Zero,
            1 => Pile::One,
            2 => Pile::two(mover),
            3 => Pile::Three,
            _ => Pile::Four,
        }
    }

    /// A two-ball pile owned by `owner`.
    #[must_use]
    pub fn two(owner: Player) -> Pile {
        match owner {
            Player::First => Pile::TwoFirst,
            Player::Second => Pile::TwoSecond,
        }
    }

    /// Its index in [`Pile::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The same pile with the players' roles exchanged.
    #[must_use]
    pub fn swapped(self) -> Pile {
        match self {
            Pile::TwoFirst => Pile::TwoSecond,
            Pile::TwoSecond => Pile::TwoFirst,
            p => p,
        }
    }
}

impl fmt::Display for Pile {
    /// `0`, `1`, `3`, `4`, and `2a` / `2b` for two-ball piles of the first / second player.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pile::TwoFirst => f.write_str("2a"),
            Pile::TwoSecond => f.write_str("2b"),
            p => write!(f, "{}", p.balls()),
        }
    }
}

/// The result of a game under optimal play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Winner {
    /// The first player wins.
    First,
    /// The second player wins.
    Second,
    /// Neither wins.
    Draw,
}

impl Winner {
    /// The olympiad's code: `1` first player wins, `2` second player wins, `0` draw.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            Winner::First => 1,
            Winner::Second => 2,
            Winner::Draw => 0,
        }
    }

    /// The winner given a result for `to_move`.
    #[must_use]
    pub fn from_outcome(outcome: search_core::Outcome, to_move: Player) -> Winner {
        match outcome {
            search_core::Outcome::Draw => Winner::Draw,
            search_core::Outcome::Win => Winner::of(to_move),
            search_core::Outcome::Loss => Winner::of(to_move.other()),
        }
    }

    fn of(p: Player) -> Winner {
        match p {
            Player::First => Winner::First,
            Player::Second => Winner::Second,
        }
    }
}

impl fmt::Display for Winner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Winner::First => "first player wins",
            Winner::Second => "second player wins",
            Winner::Draw => "draw",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_and_winners_read_as_words() {
        assert_eq!(Player::First.to_string(), "first player");
        assert_eq!(Player::Second.to_string(), "second player");
        assert_eq!(Winner::First.to_string(), "first player wins");
        assert_eq!(Winner::Second.to_string(), "second player wins");
        assert_eq!(Winner::Draw.to_string(), "draw");
    }

    #[test]
    fn a_move_leaves_the_pile_its_ball_count_names() {
        let mover = Player::First;
        assert_eq!(Pile::after_move(0, mover), Pile::Zero);
        assert_eq!(Pile::after_move(1, mover), Pile::One);
        assert_eq!(Pile::after_move(2, mover), Pile::two(mover));
        assert_eq!(Pile::after_move(3, mover), Pile::Three);
        assert_eq!(Pile::after_move(4, mover), Pile::Four);
        assert_eq!(Pile::after_move(9, mover), Pile::Four);
    }
}
