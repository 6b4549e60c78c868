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

mod folder;
mod library_path;
mod linker;
mod names;
mod refusal;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use library_path::{join_entries, library_path, LIBRARY_PATH};
use linker::{check, Verdict};
use names::{file_name, short_digest, CHECKING};
use refusal::Refusal;

/// The stand-in library, built by `build.rs`.
const STUB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpreflight-nospeech.so"));
const FOLDER_PREFIX: &str = "webkit-nospeech-";
const OPT_OUT: &str = "PREFLIGHT_WEBKIT_SPEECH";
/// Set for the one execution of this program again, so it can never loop.
const REEXECUTED: &str = "PREFLIGHT_NOSPEECH_REEXECUTED";
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
    let names: Vec<String> = flite.iter().filter_map(|path| file_name(path)).collect();
    if flite.iter().all(|path| path.starts_with(&dir)) {
        keep_for_helpers(&cache, &dir, &names);
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
    if let Err(error) = prepare(&cache, &dir, STUB, &names, &programs) {
        // Nor may a folder of ours come in with the inherited library path.
        forget_inherited_folders();
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
    execute_again(&this_program);
}

/// The second execution, which loaded the stand-in from `dir`: checked moments ago by the
/// first, it goes on to WebKit's helpers (which load it later) only while still as made.
fn keep_for_helpers(cache: &Path, dir: &Path, flite: &[String]) {
    if let Err(error) = folder::check_trusted(cache, dir, STUB, flite) {
        forget_inherited_folders();
        tracing::warn!("WebKit's helpers get the real flite: {error}");
        return;
    }
    if apply(dir) {
        tracing::info!(dir = %dir.display(), "a silent flite stands in for WebKit's speech libraries");
    }
}

/// Replaces this process with `this_program` (same pid and arguments), marked as the second
/// execution; returns only when that fails.
fn execute_again(this_program: &Path) {
    std::env::set_var(REEXECUTED, "1");
    let mut args = std::env::args_os();
    // By its path, not /proc/self/exe: the process name comes from the path's last part.
    let mut command = Command::new(this_program);
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
    preflight_engine::mcp::apply_inherited_env(command, &environment_for_other_programs());
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

/// Makes `dir` hold `stub` under every name in `flite`, verified for `programs`: created, or
/// made afresh when not exactly as made (see `folder`), checked again when what it was checked
/// against changed. A passed check whose verdict cannot be saved (a read-only cache) still
/// counts, with a warning.
fn prepare(
    cache: &Path,
    dir: &Path,
    stub: &[u8],
    flite: &[String],
    programs: &[PathBuf],
) -> Result<(), Refusal> {
    if programs.is_empty() {
        return Err(Refusal::NoPrograms);
    }
    folder::materialise(cache, dir, stub, flite)?;
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
mod tests;
