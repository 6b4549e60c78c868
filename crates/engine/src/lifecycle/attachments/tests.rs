//! Checking and copying attachments on a real file system (temp folders).

use super::*;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().file_name().to_string_lossy().into()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn files_are_copied_under_names_unique_in_the_chat() {
    let outside = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join("src")).unwrap();
    let a = write(outside.path(), "notes.txt", b"outside");
    write(&workspace.path().join("src"), "notes.txt", b"inside!");
    let dir = home.path().join("attachments/c1");
    let taken = [Attachment {
        name: "notes.txt".into(),
        size: 1,
        source: "/earlier/notes.txt".into(),
        workspace_path: None,
        media_type: None,
    }];
    let files = [a.clone(), "src/notes.txt".to_owned()];
    let copies = copy_attachments(&files, Some(workspace.path()), &dir, &taken).unwrap();
    let attachments = copies.keep();
    let summary: Vec<_> = attachments
        .iter()
        .map(|a| (a.name.as_str(), a.size, a.workspace_path.as_deref()))
        .collect();
    assert_eq!(summary, [("notes-2.txt", 7, None), ("notes-3.txt", 7, Some("src/notes.txt"))]);
    assert_eq!(attachments[0].source, std::fs::canonicalize(&a).unwrap().to_string_lossy());
    assert_eq!(names(&dir), ["notes-2.txt", "notes-3.txt"]);
    assert_eq!(std::fs::read(dir.join("notes-3.txt")).unwrap(), b"inside!");
}

#[test]
fn a_refused_file_leaves_no_copy_and_says_why() {
    let outside = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("attachments/c1");
    let good = write(outside.path(), "good.txt", b"fine");
    let cases = [
        (vec![good.clone(), "/no/such/file".to_owned()], "No such file"),
        (vec![good.clone(), outside.path().to_string_lossy().into_owned()], "not a regular file"),
        (vec!["relative.txt".to_owned()], "give an absolute path"),
        (vec![good.clone(); MAX_ATTACHMENTS + 1], "at most 10 files"),
    ];
    for (files, expected) in cases {
        let error = copy_attachments(&files, None, &dir, &[]).err().unwrap();
        assert!(error.message.contains(expected), "{files:?}: {}", error.message);
        assert!(names(&dir).is_empty(), "{files:?} left {:?}", names(&dir));
    }
}

#[test]
fn copies_not_kept_are_removed_and_big_files_refused() {
    let outside = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("attachments/c1");
    let good = write(outside.path(), "good.txt", b"fine");
    drop(copy_attachments(&[good], None, &dir, &[]).unwrap());
    assert!(names(&dir).is_empty(), "a dropped copy is removed");

    let big = outside.path().join("big.bin");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(MAX_ATTACHMENT_BYTES + 1).unwrap();
    let error = copy_attachments(&[big.to_string_lossy().into()], None, &dir, &[]).err().unwrap();
    assert!(error.message.contains("at most 25.0 MB"), "{}", error.message);
}

#[test]
fn a_picked_file_is_checked_by_the_rules_of_a_send() {
    let outside = tempfile::tempdir().unwrap();
    let good = write(outside.path(), "good.txt", b"fine");
    let picked = check_file(&good);
    assert_eq!((picked.name.as_str(), picked.size, picked.error), ("good.txt", 4, None));
    let folder = check_file(&outside.path().to_string_lossy());
    assert!(folder.error.unwrap().contains("not a regular file"));
    assert!(check_file("notes.txt").error.unwrap().contains("absolute path"));
    assert_eq!(picked.media_type, None, "text is no image");
    let image = write(outside.path(), "shot.dat", &png());
    let picked = check_file(&image);
    assert_eq!(picked.media_type.as_deref(), Some("image/png"), "told by its bytes, not its name");
}

#[test]
fn a_link_out_of_the_workspace_and_the_kernels_files_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let secret = write(outside.path(), "id_ed25519", b"-----BEGIN OPENSSH PRIVATE KEY-----");
    std::os::unix::fs::symlink(&secret, workspace.path().join("notes.txt")).unwrap();
    let dir = home.path().join("attachments/c1");
    let linked = workspace.path().join("notes.txt").to_string_lossy().into_owned();
    for file in ["notes.txt".to_owned(), linked.clone(), "../x/../../etc/passwd".to_owned()] {
        let refused =
            copy_attachments(std::slice::from_ref(&file), Some(workspace.path()), &dir, &[]);
        let message = refused.err().map(|e| e.message).unwrap_or_default();
        assert!(message.contains("leads out of the workspace"), "{file}: {message}");
    }
    for file in ["/proc/self/environ", "/sys/kernel/mm/transparent_hugepage/enabled"] {
        if !Path::new(file).exists() {
            continue;
        }
        let refused = copy_attachments(&[file.to_owned()], Some(workspace.path()), &dir, &[]);
        let message = refused.err().map(|e| e.message).unwrap_or_default();
        assert!(message.contains("a file of the system"), "{file}: {message}");
    }
    assert_eq!(names(&dir), Vec::<String>::new(), "no copy was left");
    // The file the user picks outside the workspace is theirs to attach; the chip names the
    // real file, not a link's name.
    assert!(copy_attachments(&[secret], Some(workspace.path()), &dir, &[]).is_ok());
    assert_eq!(check_file(&linked).name, "id_ed25519");
}

/// A PNG of one pixel, as base64 and as bytes.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn png() -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(PNG).unwrap()
}

fn pasted(name: Option<&str>, data: &str) -> PastedImage {
    PastedImage { name: name.map(str::to_owned), media_type: "image/png".into(), data: data.into() }
}

#[test]
fn images_are_told_by_their_bytes_and_pasted_ones_kept_beside_the_files() {
    let (outside, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let dir = home.path().join("attachments/c1");
    let image = write(outside.path(), "pasted.png", &png());
    let fake = write(outside.path(), "fake.png", b"a .png of plain text");
    let mut copies = copy_attachments(&[image, fake], None, &dir, &[]).unwrap();
    let images = [pasted(None, PNG), pasted(Some("../../shot.png"), PNG)];
    write_pasted(&mut copies, &images, &dir, &[]).unwrap();
    let kept = copies.keep();
    let summary: Vec<_> = kept.iter().map(|a| (a.name.as_str(), a.media_type.as_deref())).collect();
    let png_type = Some("image/png");
    assert_eq!(
        summary,
        [
            ("pasted.png", png_type),
            ("fake.png", None),
            ("pasted-2.png", png_type),
            ("shot.png", png_type),
        ]
    );
    assert_eq!((kept[2].source.as_str(), kept[2].size), ("pasted", 70));
    assert_eq!(std::fs::read(dir.join("shot.png")).unwrap(), png(), "never a path, the bytes");
}

#[test]
fn a_pasted_image_that_cannot_be_kept_refuses_the_message_and_leaves_no_copy() {
    let (outside, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let dir = home.path().join("attachments/c1");
    let file = write(outside.path(), "notes.txt", b"words");
    let big = "A".repeat((MAX_IMAGE_BYTES as usize / 3 + 1) * 4);
    let cases = [
        (vec![pasted(None, PNG), pasted(None, "%%% not base64")], "is not base64"),
        (vec![pasted(None, "aGVsbG8gd29ybGQ=")], "is not a PNG, JPEG, GIF or WebP"),
        (vec![pasted(None, &big)], "images of at most 20 MiB"),
        (vec![pasted(None, PNG); MAX_ATTACHMENTS], "at most 10 files and images"),
    ];
    for (images, expected) in cases {
        let mut copies = copy_attachments(std::slice::from_ref(&file), None, &dir, &[]).unwrap();
        let error = write_pasted(&mut copies, &images, &dir, &[]).err().unwrap();
        assert!(error.message.contains(expected), "{}", error.message);
        drop(copies);
        assert_eq!(names(&dir), Vec::<String>::new(), "no copy left: {expected}");
    }
}
