//! Prints the criterion results under `target/criterion` as Markdown tables of medians and
//! speedups, one table per benchmark group, so the figures in `docs/` come from a command.
//!
//! Usage: `cargo run -p benches --bin bench-report [-- GROUP_PREFIX]`, after `cargo bench`.
//! Within a group, rows go from slowest to fastest and each speedup is relative to the slowest
//! function of that group, so every ratio compares measurements of the same run.

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
    for (group, mut rows) in groups {
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
        println!("\n{group}\n");
        println!("| function | median | speedup vs {} |", rows[0].0);
        println!("|---|---:|---:|");
        let base = rows[0].1;
        for (f, m) in &rows {
            println!("| {f} | {} | {:.1}x |", human(*m), base / m);
        }
    }
}
