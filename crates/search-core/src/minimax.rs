//! Plain minimax in negamax form: the reference every faster search is tested against.
//!
//! No pruning, no memo, no move ordering: it visits the whole tree to the given depth, so it is
//! slow but obviously correct.

use crate::{Evaluate, Game, Outcome, Score, Stats};

/// The exact result of `game` for the side to move, by visiting every line to its end.
///
/// The game must be finite (every line ends); positions with no move and no outcome are draws.
///
/// ```
/// use search_core::{minimax, Game, Outcome};
///
/// /// Take 1 or 2 from a pile; whoever takes the last stone wins.
/// struct Nim(u32);
/// impl Game for Nim {
///     type Move = u32;
///     fn generate_moves(&self, m: &mut Vec<u32>) { m.extend((1..=2).filter(|&k| k <= self.0)) }
///     fn play(&mut self, k: &u32) { self.0 -= k }
///     fn undo(&mut self, k: &u32) { self.0 += k }
///     fn outcome(&self) -> Option<Outcome> { (self.0 == 0).then_some(Outcome::Loss) }
/// }
/// assert_eq!(minimax::solve(&mut Nim(4)), Outcome::Win);
/// assert_eq!(minimax::solve(&mut Nim(6)), Outcome::Loss);
/// ```
pub fn solve<G: Game>(game: &mut G) -> Outcome {
    let mut stats = Stats::default();
    solve_with_stats(game, &mut stats)
}

/// [`solve`], counting what it did in `stats`.
pub fn solve_with_stats<G: Game>(game: &mut G, stats: &mut Stats) -> Outcome {
    stats.nodes += 1;
    if let Some(o) = game.outcome() {
        stats.terminals += 1;
        return o;
    }
    let mut moves = Vec::new();
    game.generate_moves(&mut moves);
    let mut best: Option<Outcome> = None;
    for mv in &moves {
        game.play(mv);
        let v = solve_with_stats(game, stats).flip();
        game.undo(mv);
        best = best.max(Some(v));
    }
    best.unwrap_or(Outcome::Draw)
}

/// The negamax value of `game` searched `depth` plies deep: finished games score by their
/// outcome and distance ([`Score::from_outcome`]), positions at depth 0 by [`Evaluate::evaluate`].
pub fn negamax<G: Evaluate>(game: &mut G, depth: u32, stats: &mut Stats) -> Score {
    negamax_at(game, depth, 0, stats)
}

fn negamax_at<G: Evaluate>(game: &mut G, depth: u32, ply: u32, stats: &mut Stats) -> Score {
    stats.nodes += 1;
    if let Some(o) = game.outcome() {
        stats.terminals += 1;
        return Score::from_outcome(o, ply);
    }
    if depth == 0 {
        return Score::heuristic(game.evaluate());
    }
    let mut moves = Vec::new();
    game.generate_moves(&mut moves);
    if moves.is_empty() {
        return Score::DRAW;
    }
    let mut best = -Score::INFINITY;
    for mv in &moves {
        game.play(mv);
        let v = -negamax_at(game, depth - 1, ply + 1, stats);
        game.undo(mv);
        best = best.max(v);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Take 1 or 2 from a pile; whoever takes the last stone wins. Scores 7 at the horizon.
    struct Nim(u32);
    impl Game for Nim {
        type Move = u32;
        fn generate_moves(&self, m: &mut Vec<u32>) {
            m.extend((1..=2).filter(|&k| k <= self.0));
        }
        fn play(&mut self, k: &u32) {
            self.0 -= k;
        }
        fn undo(&mut self, k: &u32) {
            self.0 += k;
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.0 == 0).then_some(Outcome::Loss)
        }
    }
    impl Evaluate for Nim {
        fn evaluate(&self) -> i32 {
            7
        }
    }

    #[test]
    fn every_node_and_terminal_is_counted() {
        // Pile 3: 3 -> {2 -> {1 -> 0, 0}, 1 -> 0}: 7 positions, 3 of them finished.
        let mut stats = Stats::default();
        assert_eq!(solve_with_stats(&mut Nim(3), &mut stats), Outcome::Loss);
        assert_eq!((stats.nodes, stats.terminals), (7, 3));
        let mut stats = Stats::default();
        assert_eq!(negamax(&mut Nim(3), 5, &mut stats), Score::loss_in(2));
        assert_eq!((stats.nodes, stats.terminals), (7, 3));
        // Two plies deep: 3 -> {2 -> {1, 0}, 1 -> 0}; the horizon at 1 is not a terminal.
        let mut stats = Stats::default();
        assert_eq!(negamax(&mut Nim(3), 2, &mut stats), Score::loss_in(2));
        assert_eq!((stats.nodes, stats.terminals), (6, 2));
        // One ply: both replies are scored by the evaluation, 7 for the opponent.
        let mut stats = Stats::default();
        assert_eq!(negamax(&mut Nim(3), 1, &mut stats), Score(-7));
        assert_eq!((stats.nodes, stats.terminals), (3, 0));
    }
}
