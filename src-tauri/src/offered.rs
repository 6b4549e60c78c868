//! The files the user offered the window: picked with the paperclip's native picker or
//! dropped on the window, as the shell itself saw them (never as the window says). The
//! message box shows an offered image's thumbnail on its chip (`image_preview`), and only an
//! offered one: the window cannot have the shell read any other file back to it.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// How many offered paths are remembered (the oldest are forgotten first): more than a
/// message box holds chips, with room for a few cancelled attempts.
const REMEMBERED: usize = 256;

#[derive(Default)]
pub struct Offered {
    paths: Mutex<VecDeque<PathBuf>>,
}

impl Offered {
    /// Remembers `paths`, each once, as the latest offered.
    pub fn offer<'p>(&self, paths: impl IntoIterator<Item = &'p Path>) {
        let mut remembered = self.paths.lock().unwrap_or_else(PoisonError::into_inner);
        for path in paths {
            remembered.retain(|known| known != path);
            remembered.push_back(path.to_path_buf());
            if remembered.len() > REMEMBERED {
                remembered.pop_front();
            }
        }
    }

    /// Whether the user offered `path` (as the picker or the drop named it).
    pub fn contains(&self, path: &Path) -> bool {
        let remembered = self.paths.lock().unwrap_or_else(PoisonError::into_inner);
        remembered.iter().any(|known| known == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_was_offered_is_known_and_the_oldest_is_forgotten_first() {
        let offered = Offered::default();
        assert!(!offered.contains(Path::new("/home/u/shot.png")));
        offered.offer([Path::new("/home/u/shot.png"), Path::new("/home/u/shot.png")]);
        assert!(offered.contains(Path::new("/home/u/shot.png")));
        assert!(!offered.contains(Path::new("/home/u/.ssh/id_ed25519")));
        let many: Vec<PathBuf> = (0..REMEMBERED).map(|n| PathBuf::from(format!("/f{n}"))).collect();
        offered.offer(many.iter().map(PathBuf::as_path));
        assert!(!offered.contains(Path::new("/home/u/shot.png")), "forgotten after 256 more");
        assert!(offered.contains(Path::new("/f0")) && offered.contains(Path::new("/f255")));
    }
}
