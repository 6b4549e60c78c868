//! WebKitGTK links flite, a speech synthesiser, for the Web Speech API. The window never
//! speaks, yet loading flite's thirteen libraries costs each of the app's three processes
//! ~5.4 MB of PSS (relocating the voices' tables; measured at idle). They get a silent
//! stand-in instead: one small library built from `nospeech/nospeech.c`, put under each flite
//! library's name in a cache folder that goes first on `LD_LIBRARY_PATH`. The Web Speech API
//! keeps working and speaks silence.
//!
//! The stand-in is used only once the dynamic linker itself has confirmed, for this program
//! and WebKit's helper executables as installed here, that it provides every symbol they
//! import (what `ldd -r` does: `LD_TRACE_LOADED_OBJECTS` with `LD_BIND_NOW`, no code run).
//! The verdict is kept in the folder with the size and modification time of every object the
//! check covered, so a rebuilt app or an upgraded WebKit or flite is checked again. Whatever
//! goes wrong leaves the environment as it was: the processes then load the real flite, which
//! costs memory and nothing else.
//!
//! This process loaded the real flite before `main` ran, so once the environment is set it
//! executes itself again, once (same pid, arguments and environment). The file manager the
//! window starts gets the library path back ([`restore_for_child`]); MCP servers, started by
//! the engine, inherit it, which only matters to a program that links flite itself (it gets
//! the same silent voices, or a linker error naming the missing symbol in the server's log).
//! A GStreamer registry of the app's own keeps a plugin scan in a helper from writing
//! anything into the user's shared one. `PREFLIGHT_WEBKIT_SPEECH=system` turns all this off.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The stand-in library, built by `build.rs`.
const STUB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpreflight-nospeech.so"));
const STUB_NAME: &str = "libpreflight-nospeech.so";
const FOLDER_PREFIX: &str = "webkit-nospeech-";
/// The dynamic linker's verdict, with what it covered (see [`Verdict`]).
const VERDICT_FILE: &str = "verified";
const VERDICT_HEADER: &str = "preflight-nospeech 1";
const OPT_OUT: &str = "PREFLIGHT_WEBKIT_SPEECH";
/// Set for the one execution of this program again, so it can never loop.
const REEXECUTED: &str = "PREFLIGHT_NOSPEECH_REEXECUTED";
const LIBRARY_PATH: &str = "LD_LIBRARY_PATH";
/// GStreamer 1.x reads the versioned name first.
const GST_REGISTRIES: [&str; 2] = ["GST_REGISTRY_1_0", "GST_REGISTRY"];
/// In GStreamer's own cache folder, which WebKit's sandbox (bubblewrap) binds writable, where
/// it binds the stand-in's folder read-only.
const GST_REGISTRY_FILE: &str = "gstreamer-1.0/registry.preflight.bin";

/// What [`apply`] put in the environment, for [`restore_for_child`].
static APPLIED: OnceLock<Applied> = OnceLock::new();

struct Applied {
    dir: PathBuf,
    registry: Option<PathBuf>,
}

/// Gives this process and WebKit's helpers the silent stand-in when it can be verified, and
/// executes this program again when it still has the real flite loaded (then it does not
/// return). Logs what happened. Changes the environment: must run before any other thread.
pub fn use_silent_speech() {
    let second_run = std::env::var_os(REEXECUTED).is_some();
    std::env::remove_var(REEXECUTED);
    if std::env::var_os(OPT_OUT).is_some_and(|value| value == "system") {
        tracing::info!("{OPT_OUT}=system: the real flite is used");
        return;
    }
    let started = std::time::Instant::now();
    let loaded = loaded_objects();
    let flite: Vec<&PathBuf> = loaded.iter().filter(|path| file_name(path).is_some_and(|name| name.starts_with("libflite"))).collect();
    if flite.is_empty() {
        return; // A WebKit built without speech synthesis.
    }
    let mut programs = helper_executables(&loaded);
    if programs.is_empty() {
        tracing::warn!("WebKit's helper executables are not beside its library: the real flite is used");
        return;
    }
    let Ok(this_program) = std::env::current_exe() else { return };
    programs.push(this_program.clone());
    let Some(cache) = crate::home::cache_dir() else {
        tracing::warn!("no cache folder (neither XDG_CACHE_HOME nor HOME): the real flite is used");
        return;
    };
    let names: Vec<String> = flite.iter().filter_map(|path| file_name(path)).collect();
    let dir = match prepare(&cache, STUB, &names, &programs) {
        Ok(dir) => dir,
        Err(error) => {
            tracing::warn!("the real flite is used: {error}");
            return;
        }
    };
    apply(&dir, cache.parent().map(|caches| caches.join(GST_REGISTRY_FILE)));
    let real_flite_loaded = flite.iter().any(|path| !path.starts_with(&dir));
    let ms = started.elapsed().as_millis();
    if !real_flite_loaded {
        tracing::info!(dir = %dir.display(), ms, "a silent flite stands in for WebKit's speech libraries");
        return;
    }
    if second_run {
        tracing::warn!("the real flite is still loaded after executing again: only WebKit's helpers get the silent one");
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

/// Takes the stand-in's folder (and the app's own GStreamer registry) out of the environment
/// of a program that is not a WebKit helper.
pub fn restore_for_child(command: &mut Command) {
    let Some(Applied { dir, registry }) = APPLIED.get() else { return };
    match without_folder(std::env::var_os(LIBRARY_PATH).as_deref(), dir) {
        Some(kept) => command.env(LIBRARY_PATH, kept),
        None => command.env_remove(LIBRARY_PATH),
    };
    if registry.is_some() {
        command.env_remove(GST_REGISTRIES[0]);
    }
}

/// `library_path` without `dir`; `None` when nothing else is left.
fn without_folder(library_path: Option<&std::ffi::OsStr>, dir: &Path) -> Option<std::ffi::OsString> {
    let kept: Vec<PathBuf> = library_path.into_iter().flat_map(std::env::split_paths).filter(|path| path != dir).collect();
    if kept.is_empty() {
        return None;
    }
    std::env::join_paths(kept).ok()
}

/// Puts `dir` first on the library path (once) and names the app's own GStreamer registry
/// unless the user named one.
fn apply(dir: &Path, registry: Option<PathBuf>) {
    let mut paths: Vec<PathBuf> = std::env::var_os(LIBRARY_PATH).iter().flat_map(std::env::split_paths).collect();
    if paths.first().map(PathBuf::as_path) != Some(dir) {
        paths.insert(0, dir.to_path_buf());
        let Ok(joined) = std::env::join_paths(paths) else { return };
        std::env::set_var(LIBRARY_PATH, joined);
    }
    // Ours when no name holds another value (the second execution inherits ours).
    let registry = registry.filter(|path| GST_REGISTRIES.iter().all(|name| std::env::var_os(name).is_none_or(|value| Path::new(&value) == path)));
    if let Some(registry) = &registry {
        std::env::set_var(GST_REGISTRIES[0], registry);
    }
    let _ = APPLIED.set(Applied { dir: dir.to_path_buf(), registry });
}

/// The folder holding `stub` under every name in `flite`, verified for `programs`: created or
/// repaired under `cache` when needed, checked again when what it was checked against changed.
fn prepare(cache: &Path, stub: &[u8], flite: &[String], programs: &[PathBuf]) -> Result<PathBuf, String> {
    if programs.is_empty() {
        return Err("no program to check the stand-in against".into());
    }
    let digest = preflight_embedded::catalog::sha256_hex(stub).map_err(|error| error.to_string())?;
    let dir = cache.join(format!("{FOLDER_PREFIX}{}", &digest[..16]));
    materialise(cache, &dir, stub, flite)?;
    if !Verdict::read(&dir).is_some_and(|verdict| verdict.covers(programs)) {
        let verdict = check(&dir, programs)?;
        verdict.write(&dir)?;
    }
    Ok(dir)
}

/// Makes `dir` hold exactly `stub` as [`STUB_NAME`] with a link per name in `flite`. A new
/// folder is built aside and renamed into place, so a reader never sees half of one.
fn materialise(cache: &Path, dir: &Path, stub: &[u8], flite: &[String]) -> Result<(), String> {
    let io = |what: &str, path: &Path, error: std::io::Error| format!("{what} {}: {error}", path.display());
    crate::home::create_private_dir(cache)?;
    let library = dir.join(STUB_NAME);
    if dir.is_dir() && std::fs::read(&library).ok().as_deref() != Some(stub) {
        // Damaged (or not ours): it is only a cache, and a stale verdict must not outlive it.
        std::fs::remove_dir_all(dir).map_err(|error| io("removing the damaged", dir, error))?;
    }
    if !dir.is_dir() {
        let staging = cache.join(format!(".{}.{}", file_name(dir).unwrap_or_default(), std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        crate::home::create_private_dir(&staging)?;
        std::fs::write(staging.join(STUB_NAME), stub).map_err(|error| io("writing", &staging, error))?;
        if let Err(error) = std::fs::rename(&staging, dir) {
            let _ = std::fs::remove_dir_all(&staging);
            if !dir.is_dir() {
                return Err(io("creating", dir, error));
            }
            // Another instance made it first.
        }
    }
    for name in flite {
        let link = dir.join(name);
        if std::fs::read_link(&link).is_ok_and(|target| target == Path::new(STUB_NAME)) {
            continue;
        }
        let staging = dir.join(format!(".{name}.{}", std::process::id()));
        let _ = std::fs::remove_file(&staging);
        std::os::unix::fs::symlink(STUB_NAME, &staging).map_err(|error| io("linking", &staging, error))?;
        std::fs::rename(&staging, &link).map_err(|error| io("linking", &link, error))?;
    }
    Ok(())
}

/// Asks the dynamic linker to load and bind each program with `dir` first on the library path,
/// without running it. Any unresolved symbol or missing library refuses the stand-in.
fn check(dir: &Path, programs: &[PathBuf]) -> Result<Verdict, String> {
    let mut covered = programs.to_vec();
    for program in programs {
        let mut paths = vec![dir.to_path_buf()];
        paths.extend(std::env::var_os(LIBRARY_PATH).iter().flat_map(std::env::split_paths));
        let output = Command::new(program)
            .env(LIBRARY_PATH, std::env::join_paths(paths).map_err(|error| error.to_string())?)
            .env("LD_TRACE_LOADED_OBJECTS", "1")
            .env("LD_BIND_NOW", "1")
            .env("LD_WARN", "1")
            .output()
            .map_err(|error| format!("checking {}: {error}", program.display()))?;
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        let problem = text.lines().find(|line| {
            ["undefined symbol", "not found", "symbol lookup error", "error while loading"].iter().any(|sign| line.contains(sign))
        });
        if let Some(line) = problem.or((!output.status.success()).then_some("the check failed")) {
            return Err(format!("the dynamic linker refused it for {}: {}", program.display(), line.trim()));
        }
        // Lines read `\tname => /path (0x…)`; the stand-in's own names resolve into `dir`.
        let resolved = text.lines().filter_map(|line| line.split_once(" => ")).filter_map(|(_, rest)| rest.split_once(" (")).map(|(path, _)| PathBuf::from(path));
        covered.extend(resolved.filter(|path| !path.starts_with(dir)));
    }
    covered.sort();
    covered.dedup();
    Ok(Verdict { covered: covered.into_iter().map(|path| (Stamp::of(&path), path)).collect() })
}

/// The objects a passed check covered (the programs and every library they load), each with
/// its size and modification time then.
struct Verdict {
    covered: Vec<(Option<Stamp>, PathBuf)>,
}

#[derive(PartialEq, Eq, Clone, Copy, Debug)]
struct Stamp {
    len: u64,
    modified_ns: i128,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let metadata = std::fs::metadata(path).ok()?;
        Some(Stamp { len: metadata.len(), modified_ns: i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec()) })
    }
}

impl Verdict {
    fn read(dir: &Path) -> Option<Verdict> {
        let text = std::fs::read_to_string(dir.join(VERDICT_FILE)).ok()?;
        let mut lines = text.lines();
        if lines.next() != Some(VERDICT_HEADER) {
            return None;
        }
        let covered = lines
            .map(|line| {
                let mut fields = line.splitn(3, '\t');
                let len = fields.next()?.parse().ok()?;
                let modified_ns = fields.next()?.parse().ok()?;
                Some((Some(Stamp { len, modified_ns }), PathBuf::from(fields.next()?)))
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
    fn write(&self, dir: &Path) -> Result<(), String> {
        let mut text = format!("{VERDICT_HEADER}\n");
        for (stamp, path) in &self.covered {
            let Some(stamp) = stamp else {
                return Err(format!("{} vanished during the check", path.display()));
            };
            text.push_str(&format!("{}\t{}\t{}\n", stamp.len, stamp.modified_ns, path.display()));
        }
        let staging = dir.join(format!(".{VERDICT_FILE}.{}", std::process::id()));
        std::fs::write(&staging, text).map_err(|error| format!("writing {}: {error}", staging.display()))?;
        std::fs::rename(&staging, dir.join(VERDICT_FILE)).map_err(|error| format!("writing the verdict in {}: {error}", dir.display()))
    }
}

/// WebKit's web and network process executables, in `webkit2gtk-<api>/` beside its library.
fn helper_executables(loaded: &[PathBuf]) -> Vec<PathBuf> {
    let Some(library) = loaded.iter().find(|path| file_name(path).is_some_and(|name| name.starts_with("libwebkit2gtk-"))) else {
        return Vec::new();
    };
    let name = file_name(library).unwrap_or_default();
    let api = name.trim_start_matches("lib").split(".so").next().unwrap_or_default();
    let folder = library.with_file_name(api);
    ["WebKitWebProcess", "WebKitNetworkProcess"].iter().map(|helper| folder.join(helper)).filter(|path| path.is_file()).collect()
}

fn file_name(path: &Path) -> Option<String> {
    Some(path.file_name()?.to_string_lossy().into_owned())
}

/// Every shared object loaded in this process, by the path the dynamic linker found it at
/// (for a library found by name, a path ending in that name).
fn loaded_objects() -> Vec<PathBuf> {
    use std::ffi::{c_int, c_void, CStr};
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: libc::size_t, data: *mut c_void) -> c_int {
        // SAFETY: the dynamic linker passes a valid `info` for the duration of the call, and
        // `data` is the vector handed to `dl_iterate_phdr` below.
        let (info, paths) = unsafe { (&*info, &mut *data.cast::<Vec<PathBuf>>()) };
        if !info.dlpi_name.is_null() {
            // SAFETY: a non-null `dlpi_name` is a NUL-terminated string owned by the linker.
            let name = unsafe { CStr::from_ptr(info.dlpi_name) };
            if !name.is_empty() {
                paths.push(PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.to_bytes())));
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

    /// The flite libraries of this machine and the programs to check, as the app finds them.
    /// This test binary does not link WebKit (nothing in the tests calls it), so it loads the
    /// library the app links first.
    fn this_machine() -> (Vec<String>, Vec<PathBuf>) {
        static WEBKIT: OnceLock<usize> = OnceLock::new();
        // SAFETY: dlopen with a NUL-terminated name; the handle is kept for the process's life.
        let handle = *WEBKIT.get_or_init(|| unsafe { libc::dlopen(c"libwebkit2gtk-4.1.so.0".as_ptr(), libc::RTLD_LAZY) } as usize);
        assert_ne!(handle, 0, "WebKitGTK 4.1 is installed");
        let loaded = loaded_objects();
        let flite = loaded.iter().filter_map(|path| file_name(path)).filter(|name| name.starts_with("libflite")).collect();
        (flite, helper_executables(&loaded))
    }

    fn verdict_text(dir: &Path) -> String {
        std::fs::read_to_string(dir.join(VERDICT_FILE)).unwrap()
    }

    #[test]
    fn the_stand_in_passes_the_dynamic_linker_for_the_installed_webkit() {
        let (flite, helpers) = this_machine();
        assert!(flite.len() >= 6, "WebKit here links flite: {flite:?}");
        assert_eq!(helpers.len(), 2, "both helpers are found beside the library: {helpers:?}");
        let cache = tempfile::tempdir().unwrap();

        let dir = prepare(cache.path(), STUB, &flite, &helpers).unwrap();

        assert_eq!(std::fs::read(dir.join(STUB_NAME)).unwrap(), STUB);
        for name in &flite {
            assert_eq!(std::fs::read_link(dir.join(name)).unwrap(), Path::new(STUB_NAME), "{name}");
        }
        let verdict = Verdict::read(&dir).expect("a verdict is kept");
        assert!(verdict.covers(&helpers));
        let covered: Vec<&PathBuf> = verdict.covered.iter().map(|(_, path)| path).collect();
        assert!(covered.iter().any(|path| file_name(path).is_some_and(|name| name.starts_with("libwebkit2gtk-"))), "{covered:?}");
        assert!(!covered.iter().any(|path| path.starts_with(&dir)), "the stand-in itself is not a covered object");
        // Nothing but the folder is left in the cache (no staging folders).
        let entries: Vec<_> = std::fs::read_dir(cache.path()).unwrap().flatten().map(|entry| entry.file_name()).collect();
        assert_eq!(entries.len(), 1, "{entries:?}");
    }

    #[test]
    fn a_library_missing_what_webkit_imports_is_refused_and_never_marked_verified() {
        let (flite, helpers) = this_machine();
        // A real shared library that exports none of flite's functions.
        let impostor = std::fs::read("/lib/x86_64-linux-gnu/libutil.so.1").expect("glibc's libutil");
        let cache = tempfile::tempdir().unwrap();

        let error = prepare(cache.path(), &impostor, &flite, &helpers).unwrap_err();

        assert!(error.contains("undefined symbol"), "{error}");
        let dir = std::fs::read_dir(cache.path()).unwrap().flatten().next().unwrap().path();
        assert!(!dir.join(VERDICT_FILE).exists(), "no verdict for a refused library");
    }

    #[test]
    fn a_kept_verdict_is_trusted_only_while_what_it_covered_is_unchanged() {
        let (flite, helpers) = this_machine();
        let cache = tempfile::tempdir().unwrap();
        let dir = prepare(cache.path(), STUB, &flite, &helpers).unwrap();
        let checked = verdict_text(&dir);

        // A covered library "upgraded" (its size differs from the stamp): checked again.
        let mut lines: Vec<String> = checked.lines().map(str::to_owned).collect();
        let (len, rest) = lines[1].split_once('\t').unwrap();
        lines[1] = format!("{}\t{rest}", len.parse::<u64>().unwrap() + 1);
        std::fs::write(dir.join(VERDICT_FILE), lines.join("\n") + "\n").unwrap();
        assert!(!Verdict::read(&dir).unwrap().covers(&helpers));
        prepare(cache.path(), STUB, &flite, &helpers).unwrap();
        assert_eq!(verdict_text(&dir), checked, "the check ran again and wrote a true verdict");

        // A verdict that does not name a helper does not cover it.
        let other = vec![helpers[0].clone(), PathBuf::from("/usr/libexec/not-a-webkit-helper")];
        assert!(!Verdict::read(&dir).unwrap().covers(&other));
        // A damaged verdict is no verdict.
        std::fs::write(dir.join(VERDICT_FILE), "preflight-nospeech 1\nnot a stamp\n").unwrap();
        assert!(Verdict::read(&dir).is_none());
    }

    #[test]
    fn a_damaged_folder_is_rebuilt_and_checked_again() {
        let (flite, helpers) = this_machine();
        let cache = tempfile::tempdir().unwrap();
        let dir = prepare(cache.path(), STUB, &flite, &helpers).unwrap();
        std::fs::write(dir.join(STUB_NAME), b"not a library").unwrap();
        std::fs::remove_file(dir.join(&flite[0])).unwrap();

        assert_eq!(prepare(cache.path(), STUB, &flite, &helpers).unwrap(), dir);

        assert_eq!(std::fs::read(dir.join(STUB_NAME)).unwrap(), STUB);
        assert_eq!(std::fs::read_link(dir.join(&flite[0])).unwrap(), Path::new(STUB_NAME));
        assert!(Verdict::read(&dir).unwrap().covers(&helpers));
    }

    #[test]
    fn other_programs_get_the_library_path_without_the_folder() {
        let dir = Path::new("/home/u/.cache/preflight/webkit-nospeech-0123456789abcdef");
        let path = |text: &str| Some(std::ffi::OsString::from(text));
        assert_eq!(without_folder(Some(dir.as_os_str()), dir), None);
        assert_eq!(without_folder(None, dir), None);
        let joined = format!("{}:/opt/lib:/usr/local/lib", dir.display());
        assert_eq!(without_folder(path(&joined).as_deref(), dir), path("/opt/lib:/usr/local/lib"));
        assert_eq!(without_folder(path("/opt/lib").as_deref(), dir), path("/opt/lib"));
    }

    #[test]
    fn without_programs_to_check_against_nothing_is_written() {
        let (flite, _) = this_machine();
        let cache = tempfile::tempdir().unwrap();
        let error = prepare(cache.path(), STUB, &flite, &[]).unwrap_err();
        assert!(error.contains("no program to check"), "{error}");
        assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
    }
}
