//! `read_regular_capped`: reading a file of an untrusted folder (a cloned repository) reads
//! a regular file inside it and at most `cap` bytes of it, whatever the folder holds.

use std::io::ErrorKind;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use preflight_files::read_regular_capped;

/// Runs `read` on another thread: a read that blocks (a FIFO) fails the test instead of
/// hanging it.
fn within_seconds<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(read()).unwrap());
    rx.recv_timeout(Duration::from_secs(5)).expect("the read did not block")
}

#[test]
fn a_regular_file_is_read_whole_under_the_cap_and_cut_at_it() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("AGENTS.md"), "Run cargo test.\n").unwrap();
    let read = read_regular_capped(root.path(), Path::new("AGENTS.md"), 64 * 1024).unwrap();
    assert_eq!((read.bytes.as_slice(), read.truncated), (&b"Run cargo test.\n"[..], false));

    std::fs::write(root.path().join("big.md"), vec![b'a'; 1 << 20]).unwrap();
    let read = read_regular_capped(root.path(), Path::new("big.md"), 64 * 1024).unwrap();
    assert_eq!(read.bytes.len(), 64 * 1024);
    assert!(read.truncated);

    std::fs::write(root.path().join("exact.md"), vec![b'a'; 10]).unwrap();
    let read = read_regular_capped(root.path(), Path::new("exact.md"), 10).unwrap();
    assert_eq!((read.bytes.len(), read.truncated), (10, false), "exactly the cap is whole");

    std::fs::create_dir(root.path().join(".preflight")).unwrap();
    std::fs::write(root.path().join(".preflight/instructions.md"), "x").unwrap();
    let nested = Path::new(".preflight/instructions.md");
    assert_eq!(read_regular_capped(root.path(), nested, 8).unwrap().bytes, b"x");
}

#[test]
fn a_missing_file_is_not_found() {
    let root = tempfile::tempdir().unwrap();
    let error = read_regular_capped(root.path(), Path::new("AGENTS.md"), 8).unwrap_err();
    assert_eq!(error.source.kind(), ErrorKind::NotFound, "{error}");
}

#[test]
fn symlinks_devices_fifos_and_paths_out_of_the_folder_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("id_ed25519");
    std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\n").unwrap();
    std::fs::create_dir(outside.path().join("dir")).unwrap();
    std::fs::write(outside.path().join("dir/instructions.md"), "secret too").unwrap();
    let root = tempfile::tempdir().unwrap();
    let ws = root.path();
    symlink(&secret, ws.join("key.md")).unwrap();
    symlink("/dev/zero", ws.join("zero.md")).unwrap();
    symlink(outside.path().join("dir"), ws.join(".preflight")).unwrap();
    std::fs::write(ws.join("inside.md"), "fine").unwrap();
    symlink(ws.join("inside.md"), ws.join("link-inside.md")).unwrap();
    let fifo = std::ffi::CString::new(ws.join("fifo.md").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path only.
    assert_eq!(unsafe { libc_mkfifo(fifo.as_ptr(), 0o644) }, 0);

    let cases = [
        "key.md",
        "zero.md",
        ".preflight/instructions.md",
        "fifo.md",
        "link-inside.md",
        "../outside.md",
        "/etc/passwd",
        ".",
    ];
    for relative in cases {
        let root = ws.to_path_buf();
        let got = within_seconds(move || read_regular_capped(&root, Path::new(relative), 1 << 16));
        match got {
            Ok(read) => panic!("{relative} was read: {} bytes", read.bytes.len()),
            Err(error) => {
                assert_ne!(error.source.kind(), ErrorKind::NotFound, "{relative}: {error}");
                assert!(error.to_string().contains(relative.trim_start_matches("../")), "{error}");
            }
        }
    }
}

extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}
