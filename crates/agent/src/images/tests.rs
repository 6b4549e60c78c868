//! Tests of the image loader and of keeping a tool's images, on a temp attachments folder.

use base64::Engine as _;
use preflight_protocol::chat::{Attachment, ImagePart, Message, MessageBody};

use super::*;

/// A PNG of one pixel (70 bytes).
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn pixel() -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(PIXEL).unwrap()
}

fn attachment(name: &str, media_type: Option<&str>) -> Attachment {
    Attachment {
        name: name.into(),
        size: 70,
        source: "pasted".into(),
        workspace_path: None,
        media_type: media_type.map(str::to_owned),
    }
}

fn user(attachments: Vec<Attachment>) -> Message {
    let body = MessageBody::User {
        content: "What is this?".into(),
        files: vec![],
        attachments,
        plan_answer: false,
        resume: None,
        stopped: None,
        restored: None,
        review: None,
        typed: None,
    };
    Message { id: "m1".into(), created_at: "t".into(), body }
}

#[test]
fn a_messages_images_are_loaded_and_a_missing_copy_is_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dot.png"), pixel()).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "text").unwrap();
    let message = user(vec![
        attachment("dot.png", Some("image/png")),
        attachment("notes.txt", None),
        attachment("gone.png", Some("image/png")),
    ]);
    let mut loader = ImageLoader::new(dir.path().to_owned());
    let ModelMessage::User { content, images } = loader.view(&message) else { panic!() };
    assert_eq!(images, [ImagePart::new("image/png", PIXEL)]);
    assert!(content.contains("- dot.png (70 B, image/png)"), "still named: {content}");
    assert!(content.ends_with("\n[image gone.png could not be shown: its copy is gone]"));
    std::fs::remove_file(dir.path().join("dot.png")).unwrap();
    let again = loader.view(&message);
    assert_eq!(again.images().len(), 1, "read once per turn");
    let ModelMessage::User { content, images } = ImageLoader::blind().view(&message) else {
        panic!()
    };
    assert!(images.is_empty() && !content.contains("could not be shown"), "{content}");
}

#[test]
fn a_tools_images_are_kept_under_its_message_and_shown_again() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("chat");
    let id = MessageId::from("t1");
    let images = [ImagePart::new("image/png", PIXEL), ImagePart::new("image/png", "not base64!")];
    let kept = keep_tool_images(&folder, &id, "mcp_web_screenshot", &images);
    assert_eq!(kept.len(), 1, "what cannot be decoded is left out");
    assert_eq!(
        (kept[0].name.as_str(), kept[0].size, kept[0].source.as_str()),
        ("t1-1.png", 70, "tool mcp_web_screenshot")
    );
    assert_eq!(std::fs::read(folder.join("t1-1.png")).unwrap(), pixel());
    let body = MessageBody::Tool {
        tool_call_id: "c".into(),
        name: "mcp_web_screenshot".into(),
        content: "[image: image/png, 70 bytes]".into(),
        is_error: false,
        attachments: kept,
    };
    let message = Message { id: id.clone(), created_at: "t".into(), body };
    let view = ImageLoader::new(folder.clone()).view(&message);
    assert_eq!(view.images(), [ImagePart::new("image/png", PIXEL)]);
    let twice = keep_tool_images(&folder, &id, "x", &images[..1]);
    assert!(twice.is_empty(), "a kept image is never replaced");
}
