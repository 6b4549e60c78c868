//! Why the stand-in is not used ([`Refusal`]), and why its folder or the way to it is not
//! trusted ([`Untrusted`]): the errors the folder, the linker's check and the module share.

use std::path::PathBuf;

use crate::nospeech::names::STUB_NAME;

/// Why the stand-in is not used; the real flite is then.
#[derive(Debug, thiserror::Error)]
pub(super) enum Refusal {
    #[error("no program to check the stand-in against")]
    NoPrograms,
    #[error("the way to the stand-in's folder is not safe: {0}")]
    UnsafePlace(Untrusted),
    #[error("the stand-in's folder is not as Preflight made it: {0}")]
    NotAsMade(Untrusted),
    #[error(transparent)]
    File(#[from] preflight_files::FileError),
    #[error("the library path cannot hold the folder")]
    LibraryPathFull,
    #[error("checking {}: {why}", program.display())]
    CheckFailed { program: PathBuf, why: String },
    #[error("the dynamic linker refused it for {}: {why}", program.display())]
    LinkerRefused { program: PathBuf, why: String },
    #[error("{} vanished during the check", path.display())]
    Vanished { path: PathBuf },
}

/// Why a folder or an entry in it is not trusted.
#[derive(Debug, thiserror::Error)]
pub(super) enum Untrusted {
    #[error("{} is another user's (uid {owner})", path.display())]
    NotOurs { path: PathBuf, owner: u32 },
    #[error("{} can be changed by others (mode {mode:o})", path.display())]
    WritableByOthers { path: PathBuf, mode: u32 },
    #[error("{} has mode {mode:o}, not 700", path.display())]
    NotPrivate { path: PathBuf, mode: u32 },
    #[error("{} is not a folder", path.display())]
    NotAFolder { path: PathBuf },
    #[error("{} is not something Preflight puts there", path.display())]
    Stray { path: PathBuf },
    #[error("{} is not the stand-in library (a file of its own with the embedded bytes)", path.display())]
    NotTheLibrary { path: PathBuf },
    #[error("{} is not a link to {STUB_NAME}", path.display())]
    NotALinkToTheLibrary { path: PathBuf },
    #[error("{} does not exist", path.display())]
    Absent { path: PathBuf },
    #[error("{} holds no stand-in library", path.display())]
    NoLibrary { path: PathBuf },
    #[error("reading {}: {source}", path.display())]
    Unreadable { path: PathBuf, source: std::io::Error },
}
