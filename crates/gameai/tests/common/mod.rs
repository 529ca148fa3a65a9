//! Running the `gameai` binary as a user does, shared by the command-line tests.
#![allow(dead_code, clippy::unwrap_used)] // test helpers may panic: that is a failed test

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The working directory of every run: a scratch directory (one for all runs, so that runs
/// leave nothing to pile up), so that a relative output path (or a default one, such as
/// `battleship show`'s `heatmap.svg`) never lands in the source tree, even when a test meant
/// to be refused is not.
pub fn run_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join("gameai-cli-runs");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `gameai` with `args`, feeding `stdin`, in [`run_dir`].
pub fn gameai(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gameai"))
        .current_dir(run_dir())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The binary may exit before reading everything (bad input): ignore a closed pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The number after `"key":` in a one-line JSON object (the first, for an array).
pub fn json_number(line: &str, key: &str) -> f64 {
    let at = line.find(&format!("\"{key}\":")).unwrap() + key.len() + 3;
    let rest = line[at..].trim_start_matches('[');
    let end = rest.find([',', '}', ']']).unwrap();
    rest[..end].parse().unwrap()
}

/// The whitespace-separated words of `line`, as arguments (for arguments without spaces).
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Asserts that a run failed with `message` in its standard error.
pub fn assert_failed(out: &Output, message: &str) {
    let err = text(&out.stderr);
    assert!(!out.status.success(), "succeeded; stderr: {err}");
    assert!(err.contains(message), "expected {message:?} in: {err}");
}

/// Runs each command line (no input): each must fail, with its message on stderr.
pub fn fails_with(cases: &[(&str, &str)]) {
    for &(args, message) in cases {
        let out = gameai(&words(args), b"");
        assert!(!out.status.success(), "{args} succeeded");
        assert_failed(&out, message);
    }
}

/// A scratch directory for one test (named after it and the process), removed when dropped.
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    /// Creates the directory.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("gameai-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// The path of `file` inside it.
    pub fn file(&self, file: &str) -> std::path::PathBuf {
        self.0.join(file)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `gameai` with `args` and sends it SIGINT after 2 seconds, with `kill`, as a
/// terminal's Ctrl-C would.
pub fn interrupted_after_2_s(args: &[String]) -> std::process::Output {
    signalled_after_2_s(args, "INT")
}

/// Runs `gameai` with `args` and sends it `signal` (`INT`, `TERM`, ...) after 2 seconds,
/// with `kill`.
pub fn signalled_after_2_s(args: &[String], signal: &str) -> std::process::Output {
    signal_after_2_s(args, signal, false)
}

/// As [`signalled_after_2_s`], with `gameai` started in a process group of its own, as a
/// shell starts a job, and the signal sent to that whole group, as a terminal's Ctrl-C is
/// (programs `gameai` starts in the group receive it too).
#[cfg(unix)]
pub fn group_signalled_after_2_s(args: &[String], signal: &str) -> std::process::Output {
    signal_after_2_s(args, signal, true)
}

fn signal_after_2_s(args: &[String], signal: &str, group: bool) -> std::process::Output {
    use std::process::{Command, Stdio};
    let mut command = Command::new(env!("CARGO_BIN_EXE_gameai"));
    command
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    if group {
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
    }
    let mut child = command.spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    // A negative id names the process group the child leads.
    let target = if group {
        format!("-{}", child.id())
    } else {
        child.id().to_string()
    };
    let kill = Command::new("kill")
        .args([&format!("-{signal}"), "--", &target])
        .status()
        .unwrap();
    assert!(kill.success());
    // A program that does not stop is killed after a minute (and the test fails on its
    // status), rather than hanging the test run. Its outputs are read meanwhile, so that
    // it never waits on a full pipe.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                std::io::Read::read_to_end(&mut pipe, &mut bytes).unwrap();
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() >= deadline {
            // Not yet waited for, so the process is still the child.
            child.kill().unwrap();
            break child.wait().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Checks that a run stopped by Ctrl-C failed with the message saying how many of `asked`
/// games its report covers, and returns that number.
pub fn interrupted_report(out: &Output, asked: u64) -> usize {
    assert_failed(out, "interrupted: the report covers the first ");
    let err = text(&out.stderr);
    assert!(err.contains(&format!(" of {asked} games")), "{err}");
    err.split("the first ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of games in {err}"))
}
