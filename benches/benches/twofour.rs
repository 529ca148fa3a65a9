//! TwoFour: the solver levels on the same games.
//!
//! Each group solves one fixed set of seeded random games per iteration, starting from an empty
//! memo every time, so the levels differ only in the optimisations they switch on.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use twofour::{Level, Position, TwoFourSolver};

fn games(piles: usize, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..count)
        .map(|_| twofour::random_game(piles, &mut rng).expect("valid size"))
        .collect()
}

fn bench_levels(c: &mut Criterion, piles: usize, count: usize, levels: &[Level]) {
    let set = games(piles, count, 2002);
    let mut group = c.benchmark_group(format!("twofour/n{piles}x{count}"));
    group.sample_size(20);
    for &level in levels {
        let mut solver = TwoFourSolver::new(level);
        group.bench_function(BenchmarkId::from_parameter(level), |b| {
            b.iter(|| {
                solver.clear_memo();
                set.iter()
                    .map(|g| u32::from(solver.solve(g).code()))
                    .sum::<u32>()
            });
        });
    }
    group.finish();
}

fn twofour(c: &mut Criterion) {
    bench_levels(c, 8, 20, &Level::ALL);
    bench_levels(c, 12, 20, &Level::ALL[1..]);
    bench_levels(c, 30, 100, &Level::ALL[2..]);
}

criterion_group!(benches, twofour);
criterion_main!(benches);
