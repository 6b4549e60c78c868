//! What skills were found: the skills a turn is told of and the folders left out, as the
//! API and Settings show them, with the limits they were read under.

use std::path::PathBuf;

use serde::Serialize;

/// The built-in tool that reads a skill.
pub const SKILL_TOOL: &str = "skill";
/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The most of a `SKILL.md` that is read; a longer one is refused.
pub const SKILL_CAP: usize = 32 * 1024;
/// The most skills listed; the rest are problems.
pub const MAX_SKILLS: usize = 64;
/// The longest name (the convention's limit).
pub const NAME_CAP: usize = 64;
/// The longest description (the convention's limit).
pub const DESCRIPTION_CAP: usize = 1024;

/// The most of the system prompt a workspace's skills may take (names and descriptions); the
/// skills past it are left out.
pub const WORKSPACE_LISTING_CAP: usize = 4 * 1024;

/// The workspace's skill folders, in the order they are read.
pub const WORKSPACE_SKILL_FOLDERS: [&str; 2] = [".agents/skills", ".preflight/skills"];

/// Where a skill comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SkillSource {
    /// The user's own (`$PREFLIGHT_HOME/skills/`).
    User,
    /// The chat's workspace: untrusted text.
    Workspace,
}

/// One skill as the system prompt lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub source: SkillSource,
    /// Its folder: inside the workspace, relative to it (`.agents/skills/pdf`); the user's,
    /// absolute.
    pub folder: String,
    /// Where its files are read from: `relative` under `root`, every folder on the way
    /// checked (the workspace and `.agents/skills/pdf`; for the user's own, the skill's folder
    /// itself, links followed, and an empty `relative`).
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub(crate) root: PathBuf,
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub(crate) relative: PathBuf,
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub(crate) body: String,
}

/// A folder that looked like a skill and is not loaded: what kind of problem (for a client
/// to say in its user's language) and the English words of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SkillProblem {
    pub folder: String,
    pub kind: SkillProblemKind,
    pub problem: String,
}

/// Why a skill is not loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SkillProblemKind {
    /// `SKILL.md` is missing, a symbolic link, not a regular file or unreadable.
    Unreadable,
    /// Larger than [`SKILL_CAP`].
    TooLarge,
    /// No `---` front matter.
    NoFrontMatter,
    /// A name missing, malformed or not its folder's.
    BadName,
    /// A description missing or over [`DESCRIPTION_CAP`].
    BadDescription,
    /// Another skill of that name is listed first.
    Duplicate,
    /// Past [`MAX_SKILLS`].
    TooMany,
}

/// `GET /v1/chats/{id}/skills`: the skills a chat's turns are shown, and the folders left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SkillSet {
    pub skills: Vec<Skill>,
    pub problems: Vec<SkillProblem>,
}

impl SkillSet {
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The prompt bytes the workspace's skills listed so far take.
    fn workspace_listing(&self) -> usize {
        let workspace = self.skills.iter().filter(|s| s.source == SkillSource::Workspace);
        workspace.map(listing_bytes).sum()
    }

    pub(super) fn add(&mut self, found: Result<Skill, SkillProblem>) {
        let skill = match found {
            Ok(skill) => skill,
            Err(problem) => return self.problems.push(problem),
        };
        let (kind, problem) = if let Some(first) = self.skills.iter().find(|s| s.name == skill.name)
        {
            let why =
                format!("a skill named {:?} is already listed (in {})", skill.name, first.folder);
            (SkillProblemKind::Duplicate, why)
        } else if self.skills.len() >= MAX_SKILLS {
            (
                SkillProblemKind::TooMany,
                format!("more than {MAX_SKILLS} skills: this one is not listed"),
            )
        } else if skill.source == SkillSource::Workspace
            && self.workspace_listing() + listing_bytes(&skill) > WORKSPACE_LISTING_CAP
        {
            let why = format!(
                "the workspace's skills would take more than {} KiB of the prompt: this one is \
                 not listed",
                WORKSPACE_LISTING_CAP / 1024
            );
            (SkillProblemKind::TooMany, why)
        } else {
            return self.skills.push(skill);
        };
        self.problems.push(SkillProblem { folder: skill.folder, kind, problem });
    }
}

/// What a skill's line in the system prompt takes, near enough.
fn listing_bytes(skill: &Skill) -> usize {
    skill.name.len() + skill.description.len() + 8
}
