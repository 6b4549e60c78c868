//! WebKitGTK links flite, a speech synthesiser, for the Web Speech API. The window never
//! speaks, yet loading flite's thirteen libraries costs each of the app's three processes
//! ~5.4 MB of PSS (relocating the voices' tables; measured at idle). They get a silent
//! stand-in instead: one small library built from `nospeech/nospeech.c`, put under each flite
//! library's name in a cache folder that goes first on `LD_LIBRARY_PATH`. The Web Speech API
//! keeps working and speaks silence.
//!
//! The stand-in is used only once the dynamic linker itself has confirmed, for this program
//! and WebKit's helper executables as installed here, that the flite names resolve to it and
//! that it provides every symbol they import (what `ldd -r` does: `LD_TRACE_LOADED_OBJECTS`
//! with `LD_BIND_NOW`, no code run). The verdict is kept in the folder, per set of programs,
//! with the size, times and inode of every object the check covered, so a rebuilt app or an
//! upgraded WebKit or flite is checked again. Whatever fails before the environment is
//! changed leaves it as it was: the processes then load the real flite, which costs memory
//! and nothing else.
//!
//! This process loaded the real flite before `main` ran, so once the environment is set it
//! executes itself again, once (same pid and arguments; a marker variable, removed at once,
//! stops a loop). Other programs the app starts get the library path back
//! ([`environment_for_other_programs`]: the file manager here, MCP servers through the
//! engine). A GStreamer registry of the app's own keeps a plugin scan in a helper from
//! writing anything into the user's shared one. `PREFLIGHT_WEBKIT_SPEECH=system` turns all
//! this off. Folders of earlier builds are left in the cache (each is 30 kB).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The stand-in library, built by `build.rs`.
const STUB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpreflight-nospeech.so"));
const STUB_NAME: &str = "libpreflight-nospeech.so";
const FOLDER_PREFIX: &str = "webkit-nospeech-";
/// The dynamic linker's verdict for one set of programs (see [`Verdict`]).
const VERDICT_PREFIX: &str = "verified-";
const VERDICT_HEADER: &str = "preflight-nospeech 2";
const OPT_OUT: &str = "PREFLIGHT_WEBKIT_SPEECH";
/// Set for the one execution of this program again, so it can never loop.
const REEXECUTED: &str = "PREFLIGHT_NOSPEECH_REEXECUTED";
/// Set on the programs the check traces: should a loader run one instead of tracing it, this
/// program exits at once rather than check (and start) again.
const CHECKING: &str = "PREFLIGHT_NOSPEECH_CHECKING";
/// One program's check; a linker that traces takes milliseconds.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);
const LIBRARY_PATH: &str = "LD_LIBRARY_PATH";
/// GStreamer 1.x reads the versioned name first.
const GST_REGISTRIES: [&str; 2] = ["GST_REGISTRY_1_0", "GST_REGISTRY"];
/// In GStreamer's own cache folder (beside ours), which WebKit's bubblewrap sandbox binds
/// writable when it exists, where it binds `LD_LIBRARY_PATH` folders read-only.
const GST_CACHE: &str = "gstreamer-1.0";
const GST_REGISTRY_FILE: &str = "registry.preflight.bin";

/// What [`apply`] put in the environment, for [`environment_for_other_programs`].
static APPLIED: OnceLock<Applied> = OnceLock::new();

struct Applied {
    dir: PathBuf,
    /// The registry variable, when it is ours.
    registry: bool,
}

/// Gives this process and WebKit's helpers the silent stand-in when it can be verified, and
/// executes this program again when it still has the real flite loaded (then it does not
/// return). Logs what happened. Changes the environment: must run before any other thread.
pub fn use_silent_speech() {
    if std::env::var_os(CHECKING).is_some() {
        std::process::exit(0);
    }
    let second_run = std::env::var_os(REEXECUTED).is_some();
    std::env::remove_var(REEXECUTED);
    if std::env::var_os(OPT_OUT).is_some_and(|value| value == "system") {
        forget_inherited_folders();
        tracing::info!("{OPT_OUT}=system: the real flite is used");
        return;
    }
    let started = Instant::now();
    let loaded = loaded_objects();
    let flite: Vec<&PathBuf> = loaded
        .iter()
        .filter(|path| file_name(path).is_some_and(|name| name.starts_with("libflite")))
        .collect();
    if flite.is_empty() {
        return; // A WebKit built without speech synthesis.
    }
    let Some(cache) = crate::home::cache_dir() else {
        tracing::warn!("no absolute cache folder (XDG_CACHE_HOME or HOME): the real flite is used");
        return;
    };
    let dir = folder(&cache, STUB);
    if flite.iter().all(|path| path.starts_with(&dir)) {
        // The second execution: checked moments ago by the first.
        if apply(&dir) {
            tracing::info!(dir = %dir.display(), "a silent flite stands in for WebKit's speech libraries");
        }
        return;
    }
    let helpers = helper_executables(&loaded);
    if helpers.is_empty() {
        tracing::warn!(
            "WebKit's web and network process executables were not found: the real flite is used"
        );
        return;
    }
    let Ok(this_program) = std::env::current_exe() else { return };
    let programs: Vec<PathBuf> = helpers.into_iter().chain([this_program.clone()]).collect();
    let names: Vec<String> = flite.iter().filter_map(|path| file_name(path)).collect();
    if let Err(error) = prepare(&cache, &dir, STUB, &names, &programs) {
        tracing::warn!("the real flite is used: {error}");
        return;
    }
    if !apply(&dir) {
        return;
    }
    let ms = started.elapsed().as_millis();
    if second_run {
        tracing::warn!(ms, "the real flite is still loaded after executing again: only WebKit's helpers get the silent one");
        return;
    }
    tracing::info!(ms, libraries = names.len(), "executing again to load the silent flite");
    std::env::set_var(REEXECUTED, "1");
    let mut args = std::env::args_os();
    // By its path, not /proc/self/exe: the process name comes from the path's last part.
    let mut command = Command::new(&this_program);
    if let Some(arg0) = args.next() {
        std::os::unix::process::CommandExt::arg0(&mut command, arg0);
    }
    let error = std::os::unix::process::CommandExt::exec(command.args(args));
    std::env::remove_var(REEXECUTED);
    tracing::warn!("executing again failed ({error}): only WebKit's helpers get the silent flite");
}

/// The changes that take the stand-in out of the environment of a program that is not a
/// WebKit helper: a value sets a variable, `None` removes it. Empty when nothing was applied.
pub fn environment_for_other_programs() -> Vec<(String, Option<OsString>)> {
    let Some(Applied { dir, registry }) = APPLIED.get() else { return Vec::new() };
    let mut changes = vec![(
        LIBRARY_PATH.to_owned(),
        join_entries(library_path().into_iter().filter(|path| path != dir)),
    )];
    if *registry {
        changes.push((GST_REGISTRIES[0].to_owned(), None));
    }
    changes
}

/// Applies [`environment_for_other_programs`] to `command`.
pub fn restore_for_child(command: &mut Command) {
    preflight_engine::mcp::config::apply_inherited_env(command, &environment_for_other_programs());
}

/// This process's `LD_LIBRARY_PATH` entries. Empty entries are dropped: the dynamic linker
/// reads one as the current folder, which must never creep in through this module.
fn library_path() -> Vec<PathBuf> {
    entries(std::env::var_os(LIBRARY_PATH).as_deref())
}

fn entries(value: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
    value
        .into_iter()
        .flat_map(std::env::split_paths)
        .filter(|path| !path.as_os_str().is_empty())
        .collect()
}

/// `None` for no entries.
fn join_entries(entries: impl IntoIterator<Item = PathBuf>) -> Option<OsString> {
    let entries: Vec<PathBuf> = entries.into_iter().collect();
    if entries.is_empty() {
        return None;
    }
    std::env::join_paths(entries).ok()
}

/// With the stand-in turned off, a folder inherited from a parent Preflight is dropped too.
fn forget_inherited_folders() {
    let entries = library_path();
    let kept: Vec<PathBuf> = entries
        .iter()
        .filter(|path| !file_name(path).is_some_and(|name| name.starts_with(FOLDER_PREFIX)))
        .cloned()
        .collect();
    if kept.len() != entries.len() {
        match join_entries(kept) {
            Some(value) => std::env::set_var(LIBRARY_PATH, value),
            None => std::env::remove_var(LIBRARY_PATH),
        }
    }
}

/// Puts `dir` first on the library path (once) and names the app's own GStreamer registry
/// unless the user named one. False when the path cannot hold `dir` (then nothing changed).
fn apply(dir: &Path) -> bool {
    let entries = library_path();
    if entries.first().map(PathBuf::as_path) != Some(dir) {
        let Some(joined) = join_entries([dir.to_path_buf()].into_iter().chain(entries)) else {
            return false;
        };
        std::env::set_var(LIBRARY_PATH, joined);
    }
    let gst_cache = dir.parent().and_then(Path::parent).map(|caches| caches.join(GST_CACHE));
    let registry = gst_cache.as_ref().map(|folder| folder.join(GST_REGISTRY_FILE));
    // Ours when no name holds another value (the second execution inherits ours).
    let ours = registry.as_ref().filter(|path| {
        GST_REGISTRIES
            .iter()
            .all(|name| std::env::var_os(name).is_none_or(|value| Path::new(&value) == *path))
    });
    if let (Some(registry), Some(folder)) = (ours, &gst_cache) {
        // Made now: the sandbox binds it only when it exists.
        let _ = std::fs::create_dir_all(folder);
        std::env::set_var(GST_REGISTRIES[0], registry);
    }
    let _ = APPLIED.set(Applied { dir: dir.to_path_buf(), registry: ours.is_some() });
    true
}

/// The folder for `stub` under `cache`, named by its digest.
fn folder(cache: &Path, stub: &[u8]) -> PathBuf {
    cache.join(format!("{FOLDER_PREFIX}{}", short_digest(stub)))
}

/// The first 16 hex digits of `bytes`' SHA-256: enough to tell builds and program sets apart.
fn short_digest(bytes: &[u8]) -> String {
    let mut digest = preflight_embedded::catalog::sha256_hex(bytes).unwrap_or_default();
    digest.truncate(16);
    digest
}

/// Makes `dir` hold `stub` under every name in `flite`, verified for `programs`: created or
/// repaired when needed, checked again when what it was checked against changed. A passed
/// check whose verdict cannot be saved (a read-only cache) still counts, with a warning.
fn prepare(
    cache: &Path,
    dir: &Path,
    stub: &[u8],
    flite: &[String],
    programs: &[PathBuf],
) -> Result<(), String> {
    if programs.is_empty() {
        return Err("no program to check the stand-in against".into());
    }
    materialise(cache, dir, stub, flite)?;
    if !Verdict::read(dir, programs).is_some_and(|verdict| verdict.covers(programs)) {
        let verdict = check(dir, programs)?;
        if let Err(error) = verdict.write(dir, programs) {
            tracing::warn!(
                "the silent flite passed its check, but the verdict was not kept: {error}"
            );
        }
    }
    Ok(())
}

/// A name for a file or folder being built beside its final place, unique to this process
/// and moment (two instances may share one cache across PID namespaces).
fn staging_name(final_name: &str) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |time| time.subsec_nanos());
    let count = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!(".{final_name}.{}.{nanos}.{count}", std::process::id())
}

/// Makes `dir` hold exactly `stub` as [`STUB_NAME`] with a link per name in `flite`. A new
/// folder is built whole aside and renamed into place; a link missing from an existing one is
/// added by renaming too, so no reader ever sees a half-made file.
fn materialise(cache: &Path, dir: &Path, stub: &[u8], flite: &[String]) -> Result<(), String> {
    let io = |what: &str, path: &Path, error: std::io::Error| {
        format!("{what} {}: {error}", path.display())
    };
    let link = |folder: &Path, name: &str| -> Result<(), String> {
        let staging = folder.join(staging_name(name));
        std::os::unix::fs::symlink(STUB_NAME, &staging)
            .map_err(|error| io("linking", &staging, error))?;
        std::fs::rename(&staging, folder.join(name))
            .map_err(|error| io("linking", &folder.join(name), error))
    };
    crate::home::create_private_dir(cache)?;
    if dir.is_dir() && std::fs::read(dir.join(STUB_NAME)).ok().as_deref() != Some(stub) {
        // Damaged (or not ours): it is only a cache, and a stale verdict must not outlive it.
        std::fs::remove_dir_all(dir).map_err(|error| io("removing the damaged", dir, error))?;
    }
    if !dir.is_dir() {
        let staging = cache.join(staging_name(&file_name(dir).unwrap_or_default()));
        crate::home::create_private_dir(&staging)?;
        let built = std::fs::write(staging.join(STUB_NAME), stub)
            .map_err(|error| io("writing", &staging, error))
            .and_then(|()| flite.iter().try_for_each(|name| link(&staging, name)));
        let renamed = built.and_then(|()| {
            std::fs::rename(&staging, dir).map_err(|error| io("creating", dir, error))
        });
        if let Err(error) = renamed {
            let _ = std::fs::remove_dir_all(&staging);
            if !dir.is_dir() {
                return Err(error);
            }
            // Another instance made it first.
        }
    }
    for name in flite {
        if !std::fs::read_link(dir.join(name)).is_ok_and(|target| target == Path::new(STUB_NAME)) {
            link(dir, name)?;
        }
    }
    Ok(())
}

/// Asks the dynamic linker to load and bind each program with `dir` first on the library path,
/// without running it. The flite names must resolve into `dir`, and any unresolved symbol or
/// missing library refuses the stand-in.
fn check(dir: &Path, programs: &[PathBuf]) -> Result<Verdict, String> {
    let library_path = join_entries([dir.to_path_buf()].into_iter().chain(library_path()))
        .ok_or("the library path cannot hold the folder")?;
    let mut covered = programs.to_vec();
    for program in programs {
        let refused =
            |why: &str| format!("the dynamic linker refused it for {}: {why}", program.display());
        let text = trace(program, &library_path)?;
        let problem = text.lines().find(|line| {
            ["undefined symbol", "not found", "symbol lookup error", "error while loading"]
                .iter()
                .any(|sign| line.contains(sign))
        });
        if let Some(line) = problem {
            return Err(refused(line.trim()));
        }
        // Lines read `\tname => /path (0x…)`.
        let resolved: Vec<(&str, PathBuf)> = text
            .lines()
            .filter_map(|line| line.split_once(" => "))
            .filter_map(|(name, rest)| Some((name.trim(), PathBuf::from(rest.split_once(" (")?.0))))
            .collect();
        if !resolved
            .iter()
            .any(|(name, path)| name.starts_with("libflite") && path.starts_with(dir))
        {
            return Err(refused("no flite library resolved to the stand-in"));
        }
        if let Some((name, path)) = resolved
            .iter()
            .find(|(name, path)| name.starts_with("libflite") && !path.starts_with(dir))
        {
            return Err(refused(&format!("{name} resolved to {}", path.display())));
        }
        covered.extend(
            resolved.into_iter().map(|(_, path)| path).filter(|path| !path.starts_with(dir)),
        );
    }
    covered.sort();
    covered.dedup();
    Ok(Verdict { covered: covered.into_iter().map(|path| (Stamp::of(&path), path)).collect() })
}

/// The dynamic linker's listing of `program` with `library_path`, stdout and stderr.
fn trace(program: &Path, library_path: &OsString) -> Result<String, String> {
    let failed = |why: String| format!("checking {}: {why}", program.display());
    let mut child = Command::new(program)
        .env(LIBRARY_PATH, library_path)
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .env("LD_BIND_NOW", "1")
        .env("LD_WARN", "1")
        .env(CHECKING, "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|error| failed(error.to_string()))?;
    let deadline = Instant::now() + CHECK_TIMEOUT;
    // The listing is a few kB: the pipes cannot fill before the child exits.
    while child.try_wait().map_err(|error| failed(error.to_string()))?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(failed(format!("no answer in {CHECK_TIMEOUT:?}")));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let output = child.wait_with_output().map_err(|error| failed(error.to_string()))?;
    if !output.status.success() {
        return Err(failed(format!("the linker's listing failed ({})", output.status)));
    }
    Ok(format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// The objects a passed check covered (the programs and every library they load), each with
/// its stamp then.
struct Verdict {
    covered: Vec<(Option<Stamp>, PathBuf)>,
}

/// What changes when a file is replaced or rewritten: size, modification and change times
/// (a package install sets the latter even when it keeps the packaged mtime), inode.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
struct Stamp {
    len: u64,
    modified_ns: i128,
    changed_ns: i128,
    inode: u64,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let metadata = std::fs::metadata(path).ok()?;
        let ns = |seconds: i64, nanos: i64| i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
        Some(Stamp {
            len: metadata.len(),
            modified_ns: ns(metadata.mtime(), metadata.mtime_nsec()),
            changed_ns: ns(metadata.ctime(), metadata.ctime_nsec()),
            inode: metadata.ino(),
        })
    }

    fn parse(fields: &[&str]) -> Option<Stamp> {
        let [len, modified_ns, changed_ns, inode] = fields else { return None };
        Some(Stamp {
            len: len.parse().ok()?,
            modified_ns: modified_ns.parse().ok()?,
            changed_ns: changed_ns.parse().ok()?,
            inode: inode.parse().ok()?,
        })
    }
}

impl Verdict {
    /// The verdict's file in `dir` for `programs`: one per set, so two builds of the app
    /// sharing a cache do not overwrite each other's.
    fn file(dir: &Path, programs: &[PathBuf]) -> PathBuf {
        let names: Vec<String> = programs.iter().map(|path| path.display().to_string()).collect();
        dir.join(format!("{VERDICT_PREFIX}{}", short_digest(names.join("\n").as_bytes())))
    }

    fn read(dir: &Path, programs: &[PathBuf]) -> Option<Verdict> {
        let text = std::fs::read_to_string(Verdict::file(dir, programs)).ok()?;
        let mut lines = text.lines();
        if lines.next() != Some(VERDICT_HEADER) {
            return None;
        }
        let covered = lines
            .map(|line| {
                let fields: Vec<&str> = line.splitn(5, '\t').collect();
                let (path, stamp) = fields.split_last()?;
                Some((Some(Stamp::parse(stamp)?), PathBuf::from(path)))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Verdict { covered })
    }

    /// Whether it names every program and nothing it covered has changed since.
    fn covers(&self, programs: &[PathBuf]) -> bool {
        programs.iter().all(|program| self.covered.iter().any(|(_, path)| path == program))
            && self.covered.iter().all(|(stamp, path)| stamp.is_some() && Stamp::of(path) == *stamp)
    }

    /// Written aside and renamed into place.
    fn write(&self, dir: &Path, programs: &[PathBuf]) -> Result<(), String> {
        let mut text = format!("{VERDICT_HEADER}\n");
        for (stamp, path) in &self.covered {
            let Some(Stamp { len, modified_ns, changed_ns, inode }) = stamp else {
                return Err(format!("{} vanished during the check", path.display()));
            };
            text.push_str(&format!(
                "{len}\t{modified_ns}\t{changed_ns}\t{inode}\t{}\n",
                path.display()
            ));
        }
        let file = Verdict::file(dir, programs);
        let staging = dir.join(staging_name(&file_name(&file).unwrap_or_default()));
        std::fs::write(&staging, text)
            .map_err(|error| format!("writing {}: {error}", staging.display()))?;
        std::fs::rename(&staging, &file).map_err(|error| {
            let _ = std::fs::remove_file(&staging);
            format!("writing {}: {error}", file.display())
        })
    }
}

/// WebKit's helper executables: the web and network processes (both, or none) and the GPU
/// process when installed, in `webkit2gtk-<api>/` beside its library (Debian) or in
/// `libexec/webkit2gtk-<api>/` under the same prefix (Fedora).
fn helper_executables(loaded: &[PathBuf]) -> Vec<PathBuf> {
    let Some(library) = loaded
        .iter()
        .find(|path| file_name(path).is_some_and(|name| name.starts_with("libwebkit2gtk-")))
    else {
        return Vec::new();
    };
    let name = file_name(library).unwrap_or_default();
    let api = name.trim_start_matches("lib").split(".so").next().unwrap_or_default();
    let beside = library.with_file_name(api);
    let libexec =
        library.parent().and_then(Path::parent).map(|prefix| prefix.join("libexec").join(api));
    for folder in [Some(beside), libexec].into_iter().flatten() {
        let [web, network] =
            ["WebKitWebProcess", "WebKitNetworkProcess"].map(|helper| folder.join(helper));
        if web.is_file() && network.is_file() {
            let gpu = Some(folder.join("WebKitGPUProcess")).filter(|path| path.is_file());
            return [web, network].into_iter().chain(gpu).collect();
        }
    }
    Vec::new()
}

fn file_name(path: &Path) -> Option<String> {
    Some(path.file_name()?.to_string_lossy().into_owned())
}

/// Every shared object loaded in this process, by the path the dynamic linker found it at
/// (for a library found by name, a path ending in that name).
fn loaded_objects() -> Vec<PathBuf> {
    use std::ffi::{c_int, c_void, CStr};
    unsafe extern "C" fn each(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: the dynamic linker passes a valid `info` for the duration of the call, and
        // `data` is the vector handed to `dl_iterate_phdr` below.
        let (info, paths) = unsafe { (&*info, &mut *data.cast::<Vec<PathBuf>>()) };
        if !info.dlpi_name.is_null() {
            // SAFETY: a non-null `dlpi_name` is a NUL-terminated string owned by the linker.
            let name = unsafe { CStr::from_ptr(info.dlpi_name) };
            if !name.is_empty() {
                paths.push(PathBuf::from(
                    <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.to_bytes()),
                ));
            }
        }
        0
    }
    let mut paths: Vec<PathBuf> = Vec::new();
    // SAFETY: `each` matches the callback type and only touches `paths` through `data`.
    unsafe { libc::dl_iterate_phdr(Some(each), (&mut paths as *mut Vec<PathBuf>).cast()) };
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let entries: Vec<_> = std::fs::read_dir(cache.path())
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name())
            .collect();
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

        assert!(error.contains("undefined symbol"), "{error}");
        assert!(!Verdict::file(&dir, &helpers).exists(), "no verdict for a refused library");
    }

    #[test]
    fn flite_names_that_do_not_resolve_to_the_stand_in_are_refused() {
        let (_, helpers) = this_machine();
        let cache = tempfile::tempdir().unwrap();
        let dir = folder(cache.path(), STUB);

        // No links: the linker finds the real flite, so the check would prove nothing.
        let error = prepare(cache.path(), &dir, STUB, &[], &helpers).unwrap_err();

        assert!(error.contains("no flite library resolved to the stand-in"), "{error}");
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
            let _ = std::fs::remove_file(Verdict::file(&dir, &helpers));
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

                assert!(refused.is_err(), "{what} (made before: {already_made}): {refused:?}");
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
        let error =
            prepare(cache.path(), &folder(cache.path(), STUB), STUB, &flite, &[]).unwrap_err();
        assert!(error.contains("no program to check"), "{error}");
        assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
    }
}
