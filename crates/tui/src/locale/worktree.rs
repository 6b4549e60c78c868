//! The words of a chat in its own git worktree (DESIGN §18), in English and Russian: its
//! line under the title, `/diff`, `/merge`'s preview and question, `/keep`, `/recreate`,
//! the engine's refusals said in words, and `--worktree`'s refusals before anything starts.

/// Every word about a chat's worktree.
#[derive(Debug)]
pub struct WorktreeWords {
    /// The line under the title: `{branch}` and where it came from, `{base}`.
    pub branch_from: &'static str,
    /// `{base}` when the repository's HEAD was detached.
    pub detached: &'static str,
    pub no_changes: &'static str,
    /// After a merge: `{base}`, `{commit}`.
    pub merged: &'static str,
    pub kept: &'static str,
    pub missing: &'static str,
    /// A new chat with `--worktree`, before its first message: `{repo}`.
    pub pending: &'static str,
    /// `/diff`'s title: `{branch}`, `{base}`.
    pub diff_title: &'static str,
    pub merge_title: &'static str,
    pub squash_title: &'static str,
    pub message: &'static str,
    /// The question under a merge preview: `{files}`, `{base}`; y merges.
    pub merge_ask: &'static str,
    pub squash_ask: &'static str,
    /// Why a preview cannot be merged: `{files}`, `{base}`.
    pub conflicts: &'static str,
    pub checkout_changed: &'static str,
    pub nothing_to_merge: &'static str,
    pub cannot_merge: &'static str,
    /// What was done, in the info line.
    pub merged_info: &'static str,
    pub kept_info: &'static str,
    pub recreated_info: &'static str,
    pub key_merge: &'static str,
    pub key_cancel: &'static str,
    /// The engine's refusals (by their codes), each ending with what to do.
    pub none: &'static str,
    pub refused_missing: &'static str,
    pub refused_conflicts: &'static str,
    pub refused_checkout: &'static str,
    pub refused_merge: &'static str,
    /// git itself failed: `{why}` is git's own words.
    pub refused_git: &'static str,
    /// `--worktree` refused before anything starts: `{dir}`.
    pub needs_workspace: &'static str,
    pub not_a_repository: &'static str,
    pub for_a_new_chat: &'static str,
}

pub static EN: WorktreeWords = WorktreeWords {
    branch_from: "⎇ {branch} from {base}",
    detached: "a detached HEAD",
    no_changes: "no changes yet",
    merged: "merged into {base} ({commit})",
    kept: "kept as a branch: /recreate to work on",
    missing: "its folder is gone: /recreate makes it again",
    pending: "⎇ a worktree of its own of {repo}, made with the first message",
    diff_title: "{branch}: its changes since it left {base}",
    merge_title: "Merge {branch} into {base}",
    squash_title: "Squash {branch} into {base} as one commit",
    message: "Commit message:",
    merge_ask: "Merge {files} file(s) into {base}? [y/N]",
    squash_ask: "Squash {files} file(s) into {base} as one commit? [y/N]",
    conflicts: "Conflicts: {files}: both sides changed them differently.",
    checkout_changed: "You changed {files} in your checkout and have not committed them: commit or stash them first.",
    nothing_to_merge: "Nothing to merge: the branch has nothing {base} does not have.",
    cannot_merge: "It cannot be merged as it stands; nothing was changed.",
    merged_info: "Merged into {base}: commit {commit}.",
    kept_info: "Kept as the branch {branch}; its folder is removed (/recreate brings it back).",
    recreated_info: "The folder is back, on the branch {branch}.",
    key_merge: "merge",
    key_cancel: "cancel",
    none: "This chat works in its folder itself: it has no worktree of its own (preflight chat --worktree starts one).",
    refused_missing: "The worktree's folder is gone: /recreate makes it again from its branch.",
    refused_conflicts: "Not merged: files conflict with the branch it came from; nothing was changed. /merge lists them.",
    refused_checkout: "Not merged: you changed files it would write in your checkout; nothing was changed. /merge lists them.",
    refused_merge: "Not merged: there is nothing to merge, or the branch it came from is gone or was a detached HEAD; nothing was changed. /keep leaves it as a branch.",
    refused_git: "git failed on the chat's worktree: {why}",
    needs_workspace: "--worktree needs --workspace DIR: the git repository the chat's worktree is made of",
    not_a_repository: "--worktree: {dir} is not a git repository (its top folder, with .git): a chat gets a worktree of its own only of one",
    for_a_new_chat: "--worktree is for a new chat; an existing chat keeps its own folder",
};

pub static RU: WorktreeWords = WorktreeWords {
    branch_from: "⎇ {branch} от {base}",
    detached: "отсоединённого HEAD",
    no_changes: "изменений пока нет",
    merged: "слита в {base} ({commit})",
    kept: "оставлена веткой: /recreate — работать дальше",
    missing: "её папки нет: /recreate создаст её заново",
    pending: "⎇ свой worktree репозитория {repo}, создаётся с первым сообщением",
    diff_title: "{branch}: изменения с момента ответвления от {base}",
    merge_title: "Слияние {branch} в {base}",
    squash_title: "Слияние {branch} в {base} одним коммитом",
    message: "Сообщение коммита:",
    merge_ask: "Слить файлов: {files} в {base}? [y/N]",
    squash_ask: "Слить файлов: {files} в {base} одним коммитом? [y/N]",
    conflicts: "Конфликты: {files} — обе стороны изменили их по-разному.",
    checkout_changed: "Вы изменили {files} в своей рабочей копии и не закоммитили: сначала закоммитьте или отложите (stash) их.",
    nothing_to_merge: "Сливать нечего: в ветке нет ничего, чего нет в {base}.",
    cannot_merge: "В таком виде её не слить; ничего не изменено.",
    merged_info: "Слито в {base}: коммит {commit}.",
    kept_info: "Оставлено веткой {branch}; её папка удалена (/recreate вернёт её).",
    recreated_info: "Папка снова на месте, на ветке {branch}.",
    key_merge: "слить",
    key_cancel: "отмена",
    none: "Этот чат работает прямо в своей папке: своего worktree у него нет (его создаёт preflight chat --worktree).",
    refused_missing: "Папки worktree больше нет: /recreate создаст её заново из ветки.",
    refused_conflicts: "Не слито: файлы конфликтуют с исходной веткой; ничего не изменено. /merge покажет их.",
    refused_checkout: "Не слито: вы изменили в своей рабочей копии файлы, которые слияние запишет; ничего не изменено. /merge покажет их.",
    refused_merge: "Не слито: сливать нечего, или исходной ветки больше нет, или это был отсоединённый HEAD; ничего не изменено. /keep оставит работу веткой.",
    refused_git: "git не справился с worktree чата: {why}",
    needs_workspace: "--worktree нужен --workspace ПАПКА: git-репозиторий, из которого создаётся worktree чата",
    not_a_repository: "--worktree: {dir} — не git-репозиторий (его верхняя папка, с .git): свой worktree чат получает только из репозитория",
    for_a_new_chat: "--worktree — для нового чата; у существующего чата своя папка",
};
