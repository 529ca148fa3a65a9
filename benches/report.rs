//! Prints the criterion results under `target/criterion` as Markdown tables of medians and
//! speedups, one table per benchmark group, so the figures in `docs/` come from a command.
//!
//! Usage: `cargo run -p benches --bin bench-report [-- GROUP_PREFIX]`, after `cargo bench`.
//! Each speedup is relative to the group's baseline, the plain algorithm the other functions
//! of the group improve on (see [`BASELINES`]), so every ratio compares measurements of the
//! same run and a table's reference stays the same from one run to the next. That holds when
//! each group ran whole in the last `cargo bench`: criterion keeps every function's last
//! result, so a filter that runs part of a group leaves the rest of its table from an earlier
//! run (remove `target/criterion` first to be sure). The baseline
//! comes first, then the other functions from slowest to fastest. A group without a baseline
//! (one function per input, say) is listed by name, without speedups.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The text of a JSON string field `"name":"value"` (no escapes in criterion's ids).
fn string_field(json: &str, name: &str) -> Option<String> {
    let start = json.find(&format!("\"{name}\":\""))? + name.len() + 4;
    let end = json[start..].find('"')? + start;
    Some(json[start..end].to_owned())
}

/// The median's point estimate, in nanoseconds.
fn median_ns(json: &str) -> Option<f64> {
    let m = json.find("\"median\":")?;
    let rest = &json[m..];
    let p = rest.find("\"point_estimate\":")? + "\"point_estimate\":".len();
    let num: String = rest[p..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        .collect();
    num.parse().ok()
}

fn find_results(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "new") && p.join("benchmark.json").exists() {
                out.push(p);
            } else {
                find_results(&p, out);
            }
        }
    }
}

fn human(ns: f64) -> String {
    match ns {
        n if n >= 1e9 => format!("{:.2} s", n / 1e9),
        n if n >= 1e6 => format!("{:.2} ms", n / 1e6),
        n if n >= 1e3 => format!("{:.2} µs", n / 1e3),
        n => format!("{n:.0} ns"),
    }
}

/// Function names that serve as a group's baseline, in order of preference: the plain
/// algorithm of each benchmark group (TwoFour's solver levels run the lowest level that
/// finishes, so `plain`, then `merged`, then `memo`).
const BASELINES: &[&str] = &[
    "naive",
    "plain",
    "merged",
    "memo",
    "minimax",
    "exact",
    "play + full recount + undo",
    "plain alpha-beta + memo",
];

/// The Markdown table of one group's `(function, median ns)` rows.
fn table(mut rows: Vec<(String, f64)>) -> String {
    let base = BASELINES
        .iter()
        .find_map(|b| rows.iter().position(|(f, _)| f == b));
    let mut out = String::new();
    match base {
        Some(i) if rows.len() > 1 => {
            let (name, base_ns) = rows.remove(i);
            rows.sort_by(|a, b| b.1.total_cmp(&a.1));
            rows.insert(0, (name, base_ns));
            out.push_str(&format!(
                "| function | median | speedup vs {} |\n",
                rows[0].0
            ));
            out.push_str("|---|---:|---:|\n");
            for (f, m) in &rows {
                out.push_str(&format!("| {f} | {} | {:.1}x |\n", human(*m), base_ns / m));
            }
        }
        _ => {
            rows.sort_by(|a, b| a.0.cmp(&b.0));
            out.push_str("| function | median |\n|---|---:|\n");
            for (f, m) in &rows {
                out.push_str(&format!("| {f} | {} |\n", human(*m)));
            }
        }
    }
    out
}

fn main() {
    let prefix = std::env::args().nth(1).unwrap_or_default();
    let root =
        std::env::var("CARGO_TARGET_DIR").map_or_else(|_| PathBuf::from("target"), PathBuf::from);
    let mut dirs = Vec::new();
    find_results(&root.join("criterion"), &mut dirs);
    let mut groups: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    for d in dirs {
        let (Ok(bench), Ok(est)) = (
            std::fs::read_to_string(d.join("benchmark.json")),
            std::fs::read_to_string(d.join("estimates.json")),
        ) else {
            continue;
        };
        let (Some(group), Some(median)) = (string_field(&bench, "group_id"), median_ns(&est))
        else {
            continue;
        };
        if !group.starts_with(&prefix) {
            continue;
        }
        let function = string_field(&bench, "function_id")
            .or_else(|| string_field(&bench, "value_str"))
            .unwrap_or_default();
        groups.entry(group).or_default().push((function, median));
    }
    if groups.is_empty() {
        eprintln!(
            "no criterion results under {}/criterion; run `cargo bench -p benches` first",
            root.display()
        );
        std::process::exit(1);
    }
    for (group, rows) in groups {
        println!("\n{group}\n");
        print!("{}", table(rows));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(list: &[(&str, f64)]) -> Vec<(String, f64)> {
        list.iter().map(|&(f, m)| (f.to_owned(), m)).collect()
    }

    #[test]
    fn the_baseline_leads_even_when_it_is_not_the_slowest() {
        let t = table(rows(&[
            ("density", 50e3),
            ("article", 80e6),
            ("exact", 40e6),
            ("chain", 90e6),
        ]));
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "| function | median | speedup vs exact |");
        assert_eq!(lines[2], "| exact | 40.00 ms | 1.0x |");
        assert_eq!(lines[3], "| chain | 90.00 ms | 0.4x |");
        assert_eq!(lines[4], "| article | 80.00 ms | 0.5x |");
        assert_eq!(lines[5], "| density | 50.00 µs | 800.0x |");
    }

    #[test]
    fn the_preferred_baseline_wins() {
        let t = table(rows(&[("memo", 2e6), ("merged", 8e8), ("multiset", 1e5)]));
        assert!(t.starts_with("| function | median | speedup vs merged |"));
    }

    #[test]
    fn groups_without_a_baseline_have_no_speedups() {
        let t = table(rows(&[("p01", 2e3), ("p00", 5e3)]));
        assert_eq!(
            t,
            "| function | median |\n|---|---:|\n| p00 | 5.00 µs |\n| p01 | 2.00 µs |\n"
        );
        let single = table(rows(&[("exact", 1e3)]));
        assert!(!single.contains("speedup"));
    }
}
