//! A game without a memo key (`type Key = ()`) searched with the memo sizes the defaults ask
//! for: a key of size zero turns the memo off, so every position gets its own value instead
//! of the first one stored under the lone key.

use search_core::{
    Evaluate, Game, Keyed, Limits, Outcome, SearchConfig, Searcher, Solver, SolverConfig, minimax,
};

/// Piles; take 1 or 2 stones from one; whoever takes the last stone wins.
#[derive(Clone, Debug)]
struct Piles(Vec<u32>);

impl Game for Piles {
    type Move = (usize, u32);
    fn generate_moves(&self, moves: &mut Vec<(usize, u32)>) {
        for (i, &n) in self.0.iter().enumerate() {
            moves.extend((1..=n.min(2)).map(|k| (i, k)));
        }
    }
    fn play(&mut self, &(i, k): &(usize, u32)) {
        self.0[i] -= k;
    }
    fn undo(&mut self, &(i, k): &(usize, u32)) {
        self.0[i] += k;
    }
    fn outcome(&self) -> Option<Outcome> {
        self.0.iter().all(|&n| n == 0).then_some(Outcome::Loss)
    }
}

impl Keyed for Piles {
    type Key = ();
    fn key(&self) {}
}

impl Evaluate for Piles {
    fn evaluate(&self) -> i32 {
        0
    }
}

/// Every position of up to three piles of up to 4 stones, in an order that stores losses and
/// wins alike before later positions are asked.
fn positions() -> Vec<Vec<u32>> {
    let mut all = Vec::new();
    for a in 0..=4 {
        for b in 0..=4 {
            for c in 0..=4 {
                all.push(vec![c, b, a]);
            }
        }
    }
    all
}

#[test]
fn the_solver_gives_every_position_its_own_value() {
    let mut solver = Solver::new(SolverConfig::default());
    assert_eq!(solver.memo_bytes(), 0);
    let mut tried = Solver::<Piles>::try_new(SolverConfig::full(1 << 16)).unwrap();
    assert_eq!(tried.memo_bytes(), 0);
    let mut outcomes = [0; 2];
    for piles in positions() {
        let want = minimax::solve(&mut Piles(piles.clone()));
        assert_eq!(solver.solve(&mut Piles(piles.clone())), want, "{piles:?}");
        assert_eq!(tried.solve(&mut Piles(piles.clone())), want, "{piles:?}");
        outcomes[usize::from(want == Outcome::Win)] += 1;
    }
    // Both values occur, so one shared memo slot would have answered some position wrongly.
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}

#[test]
fn the_searcher_gives_every_position_its_own_value() {
    let mut searcher = Searcher::new(SearchConfig::default());
    assert_eq!(searcher.memo_bytes(), 0);
    for piles in positions() {
        let want = minimax::solve(&mut Piles(piles.clone()));
        let r = searcher.search(&mut Piles(piles.clone()), &Limits::default());
        assert!(r.exact, "{piles:?}");
        assert_eq!(r.outcome(), Some(want), "{piles:?}");
    }
}
