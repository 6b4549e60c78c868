//! The stand-in checked against this machine's WebKit, and its folder tampered with.

use super::*;
use crate::nospeech::library_path::entries;
use crate::nospeech::names::{STUB_NAME, VERDICT_HEADER};

/// The flite libraries of this machine and the programs to check, as the app finds them
/// (WebKit's helpers; the app itself is one more program in the app). This test binary
/// does not link WebKit (nothing in the tests calls it), so it loads the library first.
fn this_machine() -> (Vec<String>, Vec<PathBuf>) {
    static WEBKIT: OnceLock<usize> = OnceLock::new();
    // SAFETY: dlopen with a NUL-terminated name; the handle is kept for the process's life.
    let handle = *WEBKIT.get_or_init(|| unsafe {
        libc::dlopen(c"libwebkit2gtk-4.1.so.0".as_ptr(), libc::RTLD_LAZY)
    } as usize);
    assert_ne!(handle, 0, "WebKitGTK 4.1 is installed");
    let loaded = loaded_objects();
    let flite = loaded
        .iter()
        .filter_map(|path| file_name(path))
        .filter(|name| name.starts_with("libflite"))
        .collect();
    (flite, helper_executables(&loaded))
}

/// A cache with the stand-in prepared for this machine.
struct Prepared {
    flite: Vec<String>,
    helpers: Vec<PathBuf>,
    cache: tempfile::TempDir,
    dir: PathBuf,
}

impl Prepared {
    fn new() -> Prepared {
        let (flite, helpers) = this_machine();
        let cache = tempfile::tempdir().unwrap();
        let dir = folder(cache.path(), STUB);
        prepare(cache.path(), &dir, STUB, &flite, &helpers).unwrap();
        Prepared { flite, helpers, cache, dir }
    }
}

fn verdict_text(dir: &Path, programs: &[PathBuf]) -> String {
    std::fs::read_to_string(Verdict::file(dir, programs)).unwrap()
}

#[test]
fn the_stand_in_passes_the_dynamic_linker_for_the_installed_webkit() {
    let (flite, helpers) = this_machine();
    assert!(flite.len() >= 6, "WebKit here links flite: {flite:?}");
    for helper in ["WebKitWebProcess", "WebKitNetworkProcess"] {
        assert!(
            helpers.iter().any(|path| path.ends_with(helper)),
            "{helper} is found beside the library: {helpers:?}"
        );
    }
    let cache = tempfile::tempdir().unwrap();
    let dir = folder(cache.path(), STUB);

    prepare(cache.path(), &dir, STUB, &flite, &helpers).unwrap();

    assert_eq!(std::fs::read(dir.join(STUB_NAME)).unwrap(), STUB);
    for name in &flite {
        assert_eq!(std::fs::read_link(dir.join(name)).unwrap(), Path::new(STUB_NAME), "{name}");
    }
    let verdict = Verdict::read(&dir, &helpers).expect("a verdict is kept");
    assert!(verdict.covers(&helpers));
    let covered: Vec<&PathBuf> = verdict.covered.iter().map(|(_, path)| path).collect();
    assert!(
        covered
            .iter()
            .any(|path| file_name(path).is_some_and(|name| name.starts_with("libwebkit2gtk-"))),
        "{covered:?}"
    );
    assert!(
        !covered.iter().any(|path| path.starts_with(&dir)),
        "the stand-in itself is not a covered object"
    );
    assert!(
        !covered
            .iter()
            .any(|path| file_name(path).is_some_and(|name| name.starts_with("libflite"))),
        "{covered:?}"
    );
    // Nothing but the folder is left in the cache, and no staging file in it.
    let entries: Vec<_> =
        std::fs::read_dir(cache.path()).unwrap().flatten().map(|entry| entry.file_name()).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        flite.len() + 2,
        "the library, its links, one verdict"
    );
}

#[test]
fn a_library_missing_what_webkit_imports_is_refused_and_never_marked_verified() {
    let (flite, helpers) = this_machine();
    // A real shared library (loaded here with WebKit) that exports none of flite's functions.
    let impostor = loaded_objects()
        .into_iter()
        .find(|path| file_name(path).is_some_and(|name| name.starts_with("libgmodule-2.0")))
        .unwrap();
    let impostor = std::fs::read(impostor).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let dir = folder(cache.path(), &impostor);

    let error = prepare(cache.path(), &dir, &impostor, &flite, &helpers).unwrap_err();

    assert!(
        matches!(&error, Refusal::LinkerRefused { why, .. } if why.contains("undefined symbol")),
        "{error}"
    );
    assert!(!Verdict::file(&dir, &helpers).exists(), "no verdict for a refused library");
}

#[test]
fn flite_names_that_do_not_resolve_to_the_stand_in_are_refused() {
    let (_, helpers) = this_machine();
    let cache = tempfile::tempdir().unwrap();
    let dir = folder(cache.path(), STUB);

    // No links: the linker finds the real flite, so the check would prove nothing.
    let error = prepare(cache.path(), &dir, STUB, &[], &helpers).unwrap_err();

    assert!(
        matches!(&error, Refusal::LinkerRefused { why, .. } if why == "no flite library resolved to the stand-in"),
        "{error}"
    );
    assert!(!Verdict::file(&dir, &helpers).exists());
}

#[test]
fn a_kept_verdict_is_trusted_only_while_what_it_covered_is_unchanged() {
    let Prepared { flite, helpers, cache, dir } = Prepared::new();
    let checked = verdict_text(&dir, &helpers);

    // A covered library "upgraded" (its size differs from the stamp): checked again.
    let mut lines: Vec<String> = checked.lines().map(str::to_owned).collect();
    let (len, rest) = lines[1].split_once('\t').unwrap();
    lines[1] = format!("{}\t{rest}", len.parse::<u64>().unwrap() + 1);
    std::fs::write(Verdict::file(&dir, &helpers), lines.join("\n") + "\n").unwrap();
    assert!(!Verdict::read(&dir, &helpers).unwrap().covers(&helpers));
    prepare(cache.path(), &dir, STUB, &flite, &helpers).unwrap();
    assert_eq!(
        verdict_text(&dir, &helpers),
        checked,
        "the check ran again and wrote a true verdict"
    );

    // Another set of programs has a verdict of its own, and this one does not cover it.
    let other = vec![helpers[0].clone(), PathBuf::from("/usr/libexec/not-a-webkit-helper")];
    assert_ne!(Verdict::file(&dir, &other), Verdict::file(&dir, &helpers));
    assert!(!Verdict::read(&dir, &helpers).unwrap().covers(&other));
    // A damaged verdict is no verdict.
    std::fs::write(Verdict::file(&dir, &helpers), format!("{VERDICT_HEADER}\nnot a stamp\n"))
        .unwrap();
    assert!(Verdict::read(&dir, &helpers).is_none());
}

#[test]
fn a_damaged_folder_is_rebuilt_and_checked_again() {
    let Prepared { flite, helpers, cache, dir } = Prepared::new();
    std::fs::write(dir.join(STUB_NAME), b"not a library").unwrap();
    std::fs::remove_file(dir.join(&flite[0])).unwrap();

    prepare(cache.path(), &dir, STUB, &flite, &helpers).unwrap();

    assert_eq!(std::fs::read(dir.join(STUB_NAME)).unwrap(), STUB);
    assert_eq!(std::fs::read_link(dir.join(&flite[0])).unwrap(), Path::new(STUB_NAME));
    assert!(Verdict::read(&dir, &helpers).unwrap().covers(&helpers));
}

#[test]
fn a_missing_link_in_a_good_folder_is_added() {
    let Prepared { flite, helpers, cache, dir } = Prepared::new();
    std::fs::remove_file(dir.join(&flite[1])).unwrap();

    prepare(cache.path(), &dir, STUB, &flite, &helpers).unwrap();

    assert_eq!(std::fs::read_link(dir.join(&flite[1])).unwrap(), Path::new(STUB_NAME));
}

/// Whether this process may give files away (`chown`): only then are the rows about another
/// user's entries run (as root, as on the CI machines here).
fn can_give_files_away() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Another user's (nobody's) entry, without following a link.
fn give_away(path: &Path) {
    std::os::unix::fs::lchown(path, Some(65534), Some(65534)).unwrap();
}

/// The folder holds exactly what Preflight puts there: the user's own 0700 folder, the
/// library (its embedded bytes, a file of its own no one else may write), a link to it per
/// flite name, and the verdict for `programs`.
fn assert_exactly_as_made(dir: &Path, flite: &[String], programs: &[PathBuf], what: &str) {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions.
    let user = unsafe { libc::geteuid() };
    let folder = std::fs::symlink_metadata(dir).unwrap();
    assert!(folder.is_dir(), "{what}: a folder");
    assert_eq!(folder.uid(), user, "{what}: the user's own folder");
    assert_eq!(folder.mode() & 0o7777, 0o700, "{what}: mode {:o}", folder.mode() & 0o7777);
    let library = std::fs::symlink_metadata(dir.join(STUB_NAME)).unwrap();
    assert!(library.file_type().is_file(), "{what}: the library is a file of its own");
    assert_eq!(library.uid(), user, "{what}: the library is the user's");
    assert_eq!(library.mode() & 0o022, 0, "{what}: no one else may write the library");
    assert_eq!(std::fs::read(dir.join(STUB_NAME)).unwrap(), STUB, "{what}: its bytes");
    for name in flite {
        let link = std::fs::symlink_metadata(dir.join(name)).unwrap();
        assert_eq!(link.uid(), user, "{what}: {name} is the user's");
        assert_eq!(std::fs::read_link(dir.join(name)).unwrap(), Path::new(STUB_NAME), "{what}");
    }
    let mut expected: Vec<String> = flite.to_vec();
    expected.push(STUB_NAME.to_owned());
    expected.push(file_name(&Verdict::file(dir, programs)).unwrap());
    expected.sort();
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, expected, "{what}: nothing else in the folder");
}

type Tampering = fn(&Path, &[String]);

/// Ways the folder can differ from what Preflight made, each with the user's cache intact.
const TAMPERINGS: &[(&str, Tampering)] = &[
    ("a stray library under a name the linker looks up", |dir, _| {
        std::fs::write(dir.join("libgmodule-2.0.so.0"), STUB).unwrap();
    }),
    ("a stray hidden file", |dir, _| std::fs::write(dir.join(".planted"), b"x").unwrap()),
    ("a stray folder", |dir, _| std::fs::create_dir(dir.join("lib")).unwrap()),
    ("a stray link to the library", |dir, _| {
        std::os::unix::fs::symlink(STUB_NAME, dir.join("libasound.so.2")).unwrap();
    }),
    ("the folder open to everyone (0777)", |dir, _| set_mode(dir, 0o777)),
    ("the folder writable by its group (0770)", |dir, _| set_mode(dir, 0o770)),
    ("the folder readable by others (0755)", |dir, _| set_mode(dir, 0o755)),
    ("the library's bytes differ", |dir, _| {
        std::fs::write(dir.join(STUB_NAME), b"not a library").unwrap();
    }),
    ("the library one byte longer", |dir, _| {
        let mut bytes = STUB.to_vec();
        bytes.push(0);
        std::fs::write(dir.join(STUB_NAME), bytes).unwrap();
    }),
    ("the library writable by everyone", |dir, _| set_mode(&dir.join(STUB_NAME), 0o666)),
    ("the library a link to a copy outside the folder", |dir, _| {
        let outside = dir.with_file_name("copy-of-the-library.so");
        std::fs::write(&outside, STUB).unwrap();
        std::fs::remove_file(dir.join(STUB_NAME)).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join(STUB_NAME)).unwrap();
    }),
    ("a flite name a library of its own", |dir, flite| {
        std::fs::remove_file(dir.join(&flite[0])).unwrap();
        std::fs::write(dir.join(&flite[0]), STUB).unwrap();
    }),
    ("a flite link to another file", |dir, flite| {
        std::fs::remove_file(dir.join(&flite[0])).unwrap();
        std::os::unix::fs::symlink("/usr/lib/libplanted.so", dir.join(&flite[0])).unwrap();
    }),
    ("the folder another user's", |dir, _| {
        if can_give_files_away() {
            give_away(dir);
        }
    }),
    ("the library another user's", |dir, _| {
        if can_give_files_away() {
            give_away(&dir.join(STUB_NAME));
        }
    }),
    ("a flite link another user's", |dir, flite| {
        if can_give_files_away() {
            give_away(&dir.join(&flite[1]));
        }
    }),
];

#[test]
fn a_folder_not_exactly_as_made_is_made_afresh_and_checked_again() {
    for (what, tamper) in TAMPERINGS {
        let Prepared { flite, helpers, cache, dir } = Prepared::new();
        tamper(&dir, &flite);

        let prepared = prepare(cache.path(), &dir, STUB, &flite, &helpers);

        assert!(prepared.is_ok(), "{what}: {prepared:?}");
        assert_exactly_as_made(&dir, &flite, &helpers, what);
        assert!(Verdict::read(&dir, &helpers).unwrap().covers(&helpers), "{what}");
        let left: Vec<String> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with('.') || name.starts_with(FOLDER_PREFIX))
            .collect();
        assert_eq!(left, [file_name(&dir).unwrap()], "{what}: the old folder is gone");
    }
}

#[test]
fn a_folder_others_can_write_on_the_way_to_the_stand_in_is_refused() {
    type Weakening = fn(&Path, &Path);
    let weakenings: [(&str, Weakening); 4] = [
        ("the cache open to everyone", |_, cache| set_mode(cache, 0o777)),
        ("the cache writable by its group", |_, cache| set_mode(cache, 0o770)),
        ("a folder above the cache open to everyone", |above, _| set_mode(above, 0o777)),
        ("the cache another user's", |_, cache| {
            if can_give_files_away() {
                give_away(cache);
            } else {
                set_mode(cache, 0o777);
            }
        }),
    ];
    let (flite, helpers) = this_machine();
    for (what, weaken) in weakenings {
        for already_made in [false, true] {
            let above = tempfile::tempdir().unwrap();
            let cache = above.path().join("preflight");
            let dir = folder(&cache, STUB);
            if already_made {
                prepare(&cache, &dir, STUB, &flite, &helpers).unwrap();
            } else {
                std::fs::create_dir(&cache).unwrap();
            }
            weaken(above.path(), &cache);

            let refused = prepare(&cache, &dir, STUB, &flite, &helpers);

            assert!(
                matches!(refused, Err(Refusal::UnsafePlace(_))),
                "{what} (made before: {already_made}): {refused:?}"
            );
            if !already_made {
                assert!(!dir.exists(), "{what}: nothing is made in an unsafe place");
            }
        }
    }
}

#[test]
fn a_sticky_folder_above_the_cache_is_safe_as_temp_is() {
    let (flite, helpers) = this_machine();
    let above = tempfile::tempdir().unwrap();
    set_mode(above.path(), 0o1777);
    let cache = above.path().join("preflight");
    let dir = folder(&cache, STUB);

    prepare(&cache, &dir, STUB, &flite, &helpers).unwrap();

    assert_exactly_as_made(&dir, &flite, &helpers, "under a sticky folder");
}

#[test]
fn library_path_entries_never_include_the_current_folder() {
    let value = |text: &str| OsString::from(text);
    assert!(entries(Some(&value(""))).is_empty());
    assert_eq!(entries(Some(&value("/a:"))), [PathBuf::from("/a")]);
    assert_eq!(entries(Some(&value("/a::/b"))), [PathBuf::from("/a"), PathBuf::from("/b")]);
    assert!(entries(None).is_empty());
    assert_eq!(join_entries(entries(Some(&value(":/a:")))), Some(value("/a")));
    assert_eq!(join_entries(Vec::new()), None);
}

#[test]
fn without_programs_to_check_against_nothing_is_written() {
    let (flite, _) = this_machine();
    let cache = tempfile::tempdir().unwrap();
    let error = prepare(cache.path(), &folder(cache.path(), STUB), STUB, &flite, &[]).unwrap_err();
    assert!(matches!(error, Refusal::NoPrograms), "{error}");
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}
