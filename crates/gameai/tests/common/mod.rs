//! Running the `gameai` binary as a user does, shared by the command-line tests.
#![allow(dead_code, clippy::unwrap_used)] // test helpers may panic: that is a failed test

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `gameai` with `args`, feeding `stdin`.
pub fn gameai(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gameai"))
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
