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
