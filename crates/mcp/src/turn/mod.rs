//! What one turn sees and may do, decided without a server: the profiles (`profile`), the
//! `mcp_…` names models are shown (`naming`), the view over a turn's running servers
//! (`view`), the writes no tool may make (`guard`), the code sandboxes a chat may not use
//! (`consent`), a tool result as the model reads it (`result`) and a code-sandbox run as the
//! engine reads it (`sandbox`).

mod consent;
mod guard;
pub(crate) mod naming;
mod profile;
mod result;
mod sandbox;
mod view;

pub(crate) use consent::refused_unconfined;
pub(crate) use guard::refused_write;
pub use guard::PROTECTED;
pub use naming::{is_valid_name, server_prefix};
pub use profile::{
    planning_uses, server_in_profile, tool_in_profile, visible_tools, Profile, ServerTools,
    ToolRef, READ_ONLY_ALLOWLIST,
};
pub use result::to_tool_output;
pub use sandbox::{SandboxCallError, SandboxRun, EVIDENCE_CHARS};
pub(crate) use view::TurnView;
pub use view::{ProfileView, ToolSet, Unavailable};
