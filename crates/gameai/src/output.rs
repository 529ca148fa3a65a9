//! Output files written in full or not at all.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::CliError;

/// An output file that replaces the old one only once it is complete: the contents go to a
/// temporary file beside it (`NAME.partial-PID`), renamed over it by [`OutputFile::commit`].
/// A run that fails before then leaves the old file as it was and removes the temporary one;
/// a run killed by a signal leaves the old file too, and the temporary one behind. The new
/// file takes the old one's permissions; being a new file, it has the owner of the run and no
/// other hard links, and its directory must be writable. A path that exists but is not a
/// regular file (a terminal, a pipe, `/dev/null`) is written directly: there is nothing to
/// replace. So is a file reached through a descriptor link (`/dev/fd/N`, `/proc/self/fd/N`),
/// even a regular one: it is the open file the link names (the shell's `>> FILE`, say),
/// written after what it holds, not a file to replace. (A path that names the program's
/// standard output is written through it, as `-` is: see [`is_stdout`].)
pub struct OutputFile {
    writer: Option<BufWriter<File>>,
    /// The temporary file, until it is renamed into place.
    partial: Option<PathBuf>,
    /// The file to replace (symbolic links followed, so the link stays a link).
    target: PathBuf,
    /// As the user gave it, for messages.
    shown: PathBuf,
}

/// The file `path` names, symbolic links followed (also a link to a file not made yet, which
/// is then made where the link points); `None` for a loop of links (or a chain of more than
/// 40, as the system allows).
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(target) = std::fs::canonicalize(path) {
        return Some(target);
    }
    let last = link_chain(path).last()?;
    // Still a link after 40 steps: a loop, or a chain the system would refuse too.
    std::fs::read_link(&last).is_err().then_some(last)
}

/// `path` and the paths the symbolic links from it lead to, one step at a time, up to the
/// first that is not a link or 41 steps.
fn link_chain(path: &Path) -> impl Iterator<Item = PathBuf> {
    std::iter::successors(Some(path.to_owned()), |at| {
        let next = std::fs::read_link(at).ok()?;
        Some(
            at.parent()
                .map_or_else(|| next.clone(), |dir| dir.join(&next)),
        )
    })
    .take(42)
}

/// Whether `path`, or a link on its way to a file, names an open file of the process: the
/// kernel's descriptor links (`/proc/PID/fd/N`, which `/dev/fd/N` and `/dev/stdout` lead
/// to) point at an open file, not at a path (a pipe's reads `pipe:[N]`), so they can be
/// neither resolved nor replaced.
fn through_descriptor(path: &Path) -> bool {
    let names_descriptor = |p: &Path| {
        let parts: Vec<String> = p
            .components()
            .take(4)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        matches!(
            parts[..],
            ["/", "dev", "fd" | "stdout" | "stderr", ..] | ["/", "proc", _, "fd", ..]
        )
    };
    link_chain(path).any(|at| names_descriptor(&at))
}

/// Whether `path` names the file the program's standard output goes to (`/dev/stdout`, or
/// the file or pipe it was redirected to, by any name): output for it must go through
/// standard output itself, in order with the rest, not through a second descriptor with an
/// offset and a buffer of its own.
pub fn is_stdout(path: &Path) -> bool {
    names_stream(false, path)
}

/// Whether `path` names the file the program's standard input comes from (a file redirected
/// with `<`, by any name); a pipe or a terminal is no file a path names.
pub fn is_stdin(path: &Path) -> bool {
    names_stream(true, path)
}

/// Whether `path` names what standard input (`input`) or standard output is connected to;
/// for standard input, only a regular file counts.
fn names_stream(input: bool, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = if input {
            std::io::stdin().as_fd().try_clone_to_owned()
        } else {
            std::io::stdout().as_fd().try_clone_to_owned()
        };
        let Ok(fd) = fd else {
            return false;
        };
        match (File::from(fd).metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => (!input || a.is_file()) && same_inode(&a, &b),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (input, path);
        false
    }
}

/// Whether two paths name one existing file (through links too).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => same_inode(&x, &y),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// Whether two files' metadata describe one file: the same device and inode.
#[cfg(unix)]
fn same_inode(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Refuses a path that ends in a separator: `results/` names a directory, made or not, and
/// no file could ever be written there.
pub fn check_not_directory_name(path: &Path) -> Result<(), CliError> {
    if path
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator)
    {
        return Err(CliError(format!(
            "cannot write {}: it names a directory",
            path.display()
        )));
    }
    Ok(())
}

/// Whether the output `path` is written directly (see [`OutputFile`]): it exists and is not
/// a regular file or a directory, or it is reached through a descriptor link.
pub fn is_direct(path: &Path) -> bool {
    through_descriptor(path) || std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The temporary files being written, which the Ctrl-C handler removes before the program
/// quits (a file is renamed into place only once complete, and nothing else would remove it).
static PARTIALS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Takes `partial` off the list of temporary files (renamed into place or removed).
fn forget(partial: &Path) {
    if let Ok(mut files) = PARTIALS.lock() {
        files.retain(|p| p != partial);
    }
}

/// Removes the temporary files being written: the program is quitting before their runs
/// completed them (old files of their names are left as they were). Returns how many
/// there were.
pub fn remove_partials() -> usize {
    match PARTIALS.lock() {
        Ok(files) => {
            for p in files.iter() {
                let _ = std::fs::remove_file(p);
            }
            files.len()
        }
        Err(_) => 0,
    }
}

impl OutputFile {
    /// Opens the output, so that a path that cannot be written fails before any work.
    pub fn create(path: &Path) -> Result<OutputFile, CliError> {
        let error = |e: std::io::Error| CliError(format!("cannot write {}: {e}", path.display()));
        check_not_directory_name(path)?;
        if is_direct(path) {
            // Appended to: a descriptor link may name a file the shell opened with `>>`.
            let file = std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(error)?;
            return Ok(OutputFile {
                writer: Some(BufWriter::new(file)),
                partial: None,
                target: path.to_owned(),
                shown: path.to_owned(),
            });
        }
        let target = resolve(path).ok_or_else(|| {
            CliError(format!(
                "cannot write {}: too many levels of symbolic links",
                path.display()
            ))
        })?;
        if std::fs::metadata(&target).is_ok_and(|m| m.is_dir()) {
            return Err(CliError(format!(
                "cannot write {}: it is a directory",
                path.display()
            )));
        }
        let mut name = target.file_name().unwrap_or_default().to_owned();
        name.push(format!(".partial-{}", std::process::id()));
        let partial = target.with_file_name(name);
        let file = File::create(&partial).map_err(error)?;
        if let Ok(mut files) = PARTIALS.lock() {
            files.push(partial.clone());
        }
        Ok(OutputFile {
            writer: Some(BufWriter::new(file)),
            partial: Some(partial),
            target,
            shown: path.to_owned(),
        })
    }

    /// Writes through `write`, turning its failure into an error that names the file.
    pub fn write_with(
        &mut self,
        write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
    ) -> Result<(), CliError> {
        let w = self.writer.as_mut().expect("written before commit");
        write(w).map_err(|e| self.error(&e))
    }

    /// Completes the file and puts it in place of the old one.
    pub fn commit(mut self) -> Result<(), CliError> {
        let w = self.writer.take().expect("committed once");
        let file = w.into_inner().map_err(|e| self.error(e.error()))?;
        if let Some(partial) = self.partial.take() {
            if let Ok(old) = std::fs::metadata(&self.target) {
                let _ = std::fs::set_permissions(&partial, old.permissions());
            }
            // On disk before it replaces the old file.
            let done = file
                .sync_all()
                .and_then(|()| std::fs::rename(&partial, &self.target));
            if let Err(e) = done {
                let _ = std::fs::remove_file(&partial);
                forget(&partial);
                return Err(self.error(&e));
            }
            forget(&partial);
        }
        Ok(())
    }

    fn error(&self, e: &std::io::Error) -> CliError {
        CliError(format!("cannot write {}: {e}", self.shown.display()))
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some(partial) = self.partial.take() {
            self.writer = None;
            let _ = std::fs::remove_file(&partial);
            forget(&partial);
        }
    }
}

/// The text as the inside of a JSON string: quotes, backslashes and control characters
/// escaped.
pub fn json_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            c if (c as u32) < 0x20 => format!("\\u{:04x}", c as u32).chars().collect(),
            c => vec![c],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Engine names (an external brain names itself) and error messages are escaped for
    /// JSON.
    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_escape("plain"), "plain");
        assert_eq!(json_escape("a \"b\" \\ c"), "a \\\"b\\\" \\\\ c");
        assert_eq!(json_escape("tab\there\u{1f}"), "tab\\u0009here\\u001f");
        assert_eq!(json_escape(" ~é"), " ~é");
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gameai-output-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Writes `bytes` to `path` through an [`OutputFile`], committed.
    fn replace(path: &Path, bytes: &[u8]) {
        let mut f = OutputFile::create(path).unwrap();
        f.write_with(|w| w.write_all(bytes)).unwrap();
        f.commit().unwrap();
    }

    #[test]
    fn the_old_file_stays_until_the_new_one_is_complete() {
        let dir = scratch("replace");
        let path = dir.join("out.txt");
        std::fs::write(&path, "old\n").unwrap();
        let mut f = OutputFile::create(&path).unwrap();
        f.write_with(|w| w.write_all(b"new\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        // Dropped before the commit (a failed run): the old file stays, nothing is left over.
        let mut f = OutputFile::create(&path).unwrap();
        f.write_with(|w| w.write_all(b"half")).unwrap();
        drop(f);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn the_new_file_keeps_the_old_ones_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("modes");
        let path = dir.join("out.txt");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        replace(&path, b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn links_stay_links_and_special_files_are_written_directly() {
        let dir = scratch("links");
        let real = dir.join("real.txt");
        let link = dir.join("link.txt");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        replace(&link, b"new");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        // A link to a file not made yet (relative, as `ln -s` makes them): the file is made
        // where it points, and the link stays.
        let dangling = dir.join("dangling.txt");
        std::os::unix::fs::symlink("later.txt", &dangling).unwrap();
        replace(&dangling, b"made");
        assert!(
            std::fs::symlink_metadata(&dangling)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("later.txt")).unwrap(),
            "made"
        );
        // A loop of links is refused, and left as it was.
        let (a, b) = (dir.join("a"), dir.join("b"));
        std::os::unix::fs::symlink("b", &a).unwrap();
        std::os::unix::fs::symlink("a", &b).unwrap();
        let err = OutputFile::create(&a).err().unwrap();
        assert!(err.0.contains("too many levels"), "{}", err.0);
        assert!(
            std::fs::symlink_metadata(&a)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // What is not a regular file is written directly, never replaced: a named pipe of the
        // test's own (not a system device, which code that got this wrong would replace),
        // with a reader at its other end.
        let pipe = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&pipe).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", pipe.display());
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || std::fs::read(pipe))
        };
        replace(&pipe, b"through the pipe");
        let kind = std::fs::symlink_metadata(&pipe).unwrap().file_type();
        assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind));
        assert_eq!(reader.join().unwrap().unwrap(), b"through the pipe");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_directory_is_refused_at_once() {
        let dir = scratch("directory");
        let err = OutputFile::create(&dir).err().unwrap();
        assert!(err.0.ends_with("it is a directory"), "{}", err.0);
        assert!(crate::check_output(&dir).is_err());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `--out /dev/stdout >> log` (here a descriptor of the test's own, appending to a file
    /// of its own): the output goes after what the file holds, into the same file, which is
    /// not replaced by a new one.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_descriptor_link_is_written_through_not_replaced() {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        let dir = scratch("descriptor");
        let path = dir.join("log.txt");
        std::fs::write(&path, "old\n").unwrap();
        let inode = std::fs::metadata(&path).unwrap().ino();
        let open = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let link = PathBuf::from(format!("/proc/self/fd/{}", open.as_raw_fd()));
        assert!(is_direct(&link));
        crate::check_output(&link).unwrap();
        replace(&link, b"new\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\nnew\n");
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode);
        // So are the other spellings, and a link of the user's to one of them.
        assert!(through_descriptor(Path::new("/dev/stdout")));
        assert!(through_descriptor(Path::new("/dev/fd/1")));
        let mine = dir.join("to-stdout");
        std::os::unix::fs::symlink("/dev/stdout", &mine).unwrap();
        assert!(through_descriptor(&mine));
        assert!(!through_descriptor(&path));
        drop(open);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `results/` names a directory whether or not it exists: refused before any work, with
    /// nothing left behind (it used to pass the early check and fail once the run was over).
    #[test]
    fn a_path_ending_in_a_separator_is_refused_at_once() {
        let dir = scratch("slash");
        for name in ["results/", "file.jsonl/"] {
            let path = dir.join(name);
            let err = OutputFile::create(&path).err().unwrap();
            assert!(err.0.ends_with("it names a directory"), "{}", err.0);
            assert!(crate::check_output(&path).is_err());
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_path_fails_at_once() {
        let err = OutputFile::create(Path::new("/no/such/dir/out.txt"))
            .err()
            .unwrap();
        assert!(
            err.0.contains("cannot write /no/such/dir/out.txt"),
            "{}",
            err.0
        );
    }
}
