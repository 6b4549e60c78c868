//! Whether a call may go to a code-sandbox server, judged by what the server said of its
//! confinement when it started and by whether the chat allows unconfined runs. A server that
//! fell back to running unconfined (its own probe failed where the engine's worked), an older
//! one that says nothing, or another code sandbox is not used for a chat without the user's
//! choice (DESIGN §11). Pure.

use crate::classify::ServerClass;
use crate::confinement::Reported;

/// Why a call may not go to `server` of `class`, which said `reported` of its confinement,
/// for a chat that does (`allowed`) or does not allow unconfined runs; `None` when it may.
pub(crate) fn refused_unconfined(
    class: ServerClass,
    server: &str,
    reported: &Reported,
    allowed: bool,
) -> Option<String> {
    if class != ServerClass::CodeSandbox || allowed {
        return None;
    }
    let why = reported.unconfined_because()?;
    Some(format!(
        "Refused, nothing ran: the code sandbox `{server}` would not confine this run ({why}), \
         and this chat is not allowed to run unconfined. The user allows it by approving a plan \
         with \"Run unconfined\" (offered once Preflight finds that bubblewrap cannot confine \
         runs: restart Preflight for it to check again), or by setting [sandbox] confinement = \
         \"off\". Do not try other ways to run code; tell the user."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_confined_sandbox_serves_a_chat_without_the_users_choice() {
        let down = Reported::Unconfined { reason: "bwrap: setting up uid map".into() };
        let table = [
            (ServerClass::CodeSandbox, Reported::Confined, false, false),
            (ServerClass::CodeSandbox, down.clone(), false, true),
            (ServerClass::CodeSandbox, Reported::Unsaid, false, true),
            (ServerClass::CodeSandbox, down.clone(), true, false),
            (ServerClass::CodeSandbox, Reported::Unsaid, true, false),
            (ServerClass::Filesystem, Reported::Unsaid, false, false),
            (ServerClass::Other, down.clone(), false, false),
        ];
        for (class, reported, allowed, refused) in table {
            let why = refused_unconfined(class, "code-sandbox", &reported, allowed);
            assert_eq!(why.is_some(), refused, "{class:?} {reported:?} allowed {allowed}");
        }
        let why = refused_unconfined(ServerClass::CodeSandbox, "box", &down, false).unwrap();
        assert!(why.contains("`box`") && why.contains("uid map"), "{why}");
        assert!(why.contains("Run unconfined") && why.contains("confinement = \"off\""), "{why}");
    }
}
