//! The terminal's words in English and Russian, chosen as the window chooses: the user's
//! locale (`LC_ALL`, then `LC_MESSAGES`, then `LANG`; `ru*` is Russian, anything else English).
//! Words with a number carry a `{n}`-style slot filled by [`fill`].

use preflight_engine::chat::Phase;
use preflight_engine::tasks::{ChangeKind, ChangeRequest, StopReason};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    English,
    Russian,
}

impl Language {
    /// The language of the locale variables, read through `var` (the process's environment).
    pub fn from_locale(var: impl Fn(&str) -> Option<String>) -> Language {
        let tag = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .into_iter()
            .filter_map(&var)
            .find(|value| !value.is_empty())
            .unwrap_or_default();
        if tag.to_lowercase().starts_with("ru") {
            Language::Russian
        } else {
            Language::English
        }
    }

    pub fn words(self) -> &'static Words {
        match self {
            Language::English => &EN,
            Language::Russian => &RU,
        }
    }
}

/// `template` with each `{name}` replaced by its value.
pub fn fill(template: &str, values: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), &value.to_string());
    }
    out
}

/// Every word the terminal shows.
#[derive(Debug)]
pub struct Words {
    pub new_chat: &'static str,
    pub you: &'static str,
    pub planning: &'static str,
    pub questions: &'static str,
    pub awaiting_approval: &'static str,
    pub executing: &'static str,
    pub input_placeholder: &'static str,
    pub input_locked: &'static str,
    pub feedback_prompt: &'static str,
    pub own_answer: &'static str,
    pub own_placeholder: &'static str,
    pub planner_asks: &'static str,
    pub planner_asked: &'static str,
    pub question_of: &'static str,
    pub your_answer: &'static str,
    pub plan_label: &'static str,
    pub revision: &'static str,
    pub aim: &'static str,
    pub approach: &'static str,
    pub risks: &'static str,
    pub steps: &'static str,
    pub check: &'static str,
    pub libraries: &'static str,
    pub sandbox: &'static str,
    pub sandbox_create: &'static str,
    pub sandbox_reuse: &'static str,
    pub approve: &'static str,
    pub approve_unconfined: &'static str,
    /// Asked after the first Enter on "Approve, run unconfined".
    pub confirm_unconfined: &'static str,
    pub revise: &'static str,
    pub cancel_plan: &'static str,
    pub approved: &'static str,
    pub no_tools: &'static str,
    pub tasks_label: &'static str,
    pub tasks_done: &'static str,
    pub tasks_dropped: &'static str,
    pub plan_completed: &'static str,
    pub change_asks: &'static str,
    pub change_approve: &'static str,
    pub change_keep: &'static str,
    pub change_why: &'static str,
    pub change_drop: &'static str,
    pub change_modify: &'static str,
    pub change_check: &'static str,
    pub change_replace: &'static str,
    pub mcp_label: &'static str,
    pub mcp_open: &'static str,
    pub mcp_accept: &'static str,
    pub mcp_decline: &'static str,
    pub mcp_cancel: &'static str,
    pub stopped_label: &'static str,
    pub continue_work: &'static str,
    /// Why the executor stopped, one sentence a reason, in [`StopReason`]'s order.
    pub stop_reasons: [&'static str; 8],
    pub tool_running: &'static str,
    pub tool_failed: &'static str,
    pub lines: &'static str,
    pub summarised: &'static str,
    pub chats_label: &'static str,
    pub search_prompt: &'static str,
    pub no_chats: &'static str,
    pub nothing_found: &'static str,
    pub key_send: &'static str,
    pub key_stop: &'static str,
    pub key_choose: &'static str,
    pub key_confirm: &'static str,
    pub key_chats: &'static str,
    pub key_new: &'static str,
    pub key_tools: &'static str,
    pub key_cancel_plan: &'static str,
    pub key_scroll: &'static str,
    pub key_quit: &'static str,
    pub key_open: &'static str,
    pub key_close: &'static str,
    pub key_back: &'static str,
    pub key_delete: &'static str,
    /// The chat list's question before a chat is deleted.
    pub delete_confirm: &'static str,
}

impl Words {
    /// Why the executor stopped, in a sentence.
    pub fn stop_reason(&self, reason: StopReason) -> &'static str {
        let index = match reason {
            StopReason::Answered => 0,
            StopReason::GateFailed => 1,
            StopReason::NoProgress => 2,
            StopReason::Loop => 3,
            StopReason::RoundCap => 4,
            StopReason::ProviderError => 5,
            StopReason::UserStop => 6,
            StopReason::Interrupted => 7,
        };
        self.stop_reasons[index]
    }

    /// The change the executor asks for, in a line.
    pub fn change(&self, change: &ChangeRequest) -> String {
        let task = change.task.unwrap_or(0);
        let title = change.title.as_deref().unwrap_or("");
        let new_title = change.new_title.as_deref().unwrap_or("");
        let new_check = change.new_check.as_deref().unwrap_or("");
        let old_check = change.old_check.as_deref().unwrap_or("");
        let count = change.tasks.as_ref().map_or(0, Vec::len);
        let (template, new) = match change.kind {
            ChangeKind::Drop => (self.change_drop, ""),
            ChangeKind::Modify => (self.change_modify, new_title),
            ChangeKind::Check => (self.change_check, new_check),
            ChangeKind::Replace => (self.change_replace, ""),
        };
        let values: [(&str, &dyn std::fmt::Display); 5] =
            [("task", &task), ("title", &title), ("new", &new), ("old", &old_check), ("n", &count)];
        fill(template, &values)
    }

    /// The status line of a phase; empty when the chat is idle.
    pub fn phase(&self, phase: Phase) -> &'static str {
        match phase {
            Phase::Planning => self.planning,
            Phase::Questions => self.questions,
            Phase::AwaitingApproval => self.awaiting_approval,
            Phase::Executing => self.executing,
            Phase::Idle => "",
        }
    }
}

pub static EN: Words = Words {
    new_chat: "New chat",
    you: "You",
    planning: "Drafting a plan…",
    questions: "Waiting for your answers",
    awaiting_approval: "Waiting for your approval",
    executing: "Working…",
    input_placeholder: "Type a task and press Enter",
    input_locked: "Answer the planner's questions first",
    feedback_prompt: "What should change in the plan?",
    own_answer: "Your own answer",
    own_placeholder: "type your answer",
    planner_asks: "The planner asks",
    planner_asked: "The planner asked",
    question_of: "question {n} of {total}",
    your_answer: "Your answer:",
    plan_label: "The plan",
    revision: "revision {n}",
    aim: "Aim:",
    approach: "Approach:",
    risks: "Risks:",
    steps: "Steps",
    check: "check",
    libraries: "Libraries",
    sandbox: "Sandbox:",
    sandbox_create: "a new sandbox",
    sandbox_reuse: "reuses the existing sandbox",
    approve: "Approve",
    approve_unconfined: "Approve, run unconfined",
    confirm_unconfined:
        "Runs unconfined, with your rights: Enter again approves; any other key waits",
    revise: "Revise…",
    cancel_plan: "Cancel plan",
    approved: "Approved",
    no_tools: "This model cannot call tools: choose a provider with tools to carry out a plan.",
    tasks_label: "Tasks",
    tasks_done: "{done} of {total} done",
    tasks_dropped: "{n} dropped",
    plan_completed: "Plan completed",
    change_asks: "The executor asks to change the plan",
    change_approve: "Approve",
    change_keep: "Keep the plan",
    change_why: "Why:",
    change_drop: "Drop step {task}: “{title}”",
    change_modify: "Reword step {task}: “{title}” → “{new}”",
    change_check: "Prove step {task} “{title}” by `{new}` instead of its planned check `{old}`",
    change_replace: "Replace the open steps with {n} new ones",
    mcp_label: "A question from an MCP server",
    mcp_open: "Open this page in a browser, then accept:",
    mcp_accept: "Accept",
    mcp_decline: "Decline",
    mcp_cancel: "Cancel",
    stopped_label: "The executor stopped with tasks left",
    continue_work: "Continue",
    stop_reasons: [
        "It gave its answer before the open tasks were finished.",
        "A step's check failed and was not fixed.",
        "For many rounds it changed nothing and looked at nothing new.",
        "It kept repeating the same tool call.",
        "It reached the most tool rounds one turn may take.",
        "The model provider failed during the turn.",
        "You stopped the turn.",
        "The turn was interrupted (Preflight was closed or restarted).",
    ],
    tool_running: "running…",
    tool_failed: "failed",
    lines: "{n} lines",
    summarised: "Earlier messages summarised",
    chats_label: "Chats",
    search_prompt: "Search",
    no_chats: "No chats yet",
    nothing_found: "Nothing found",
    key_send: "send",
    key_stop: "stop",
    key_choose: "choose",
    key_confirm: "confirm",
    key_chats: "chats",
    key_new: "new",
    key_tools: "tools",
    key_cancel_plan: "cancel plan",
    key_scroll: "scroll",
    key_quit: "quit",
    key_open: "open",
    key_close: "close",
    key_back: "back",
    key_delete: "delete",
    delete_confirm: "Delete this chat? Enter deletes it, Esc keeps it",
};

pub static RU: Words = Words {
    new_chat: "Новый чат",
    you: "Вы",
    planning: "Составляем план…",
    questions: "Ждём ваших ответов",
    awaiting_approval: "Ждём вашего одобрения",
    executing: "Работаем…",
    input_placeholder: "Опишите задачу и нажмите Enter",
    input_locked: "Сначала ответьте на вопросы планировщика",
    feedback_prompt: "Что изменить в плане?",
    own_answer: "Свой вариант",
    own_placeholder: "введите свой ответ",
    planner_asks: "Планировщик спрашивает",
    planner_asked: "Планировщик спросил",
    question_of: "вопрос {n} из {total}",
    your_answer: "Ваш ответ:",
    plan_label: "План",
    revision: "редакция {n}",
    aim: "Цель:",
    approach: "Подход:",
    risks: "Риски:",
    steps: "Шаги",
    check: "проверка",
    libraries: "Библиотеки",
    sandbox: "Песочница:",
    sandbox_create: "новая песочница",
    sandbox_reuse: "существующая песочница",
    approve: "Одобрить",
    approve_unconfined: "Одобрить без изоляции",
    confirm_unconfined: "Без изоляции, с вашими правами: Enter ещё раз — одобрить, другая клавиша — ждать",
    revise: "Переработать…",
    cancel_plan: "Отменить план",
    approved: "Одобрено",
    no_tools: "Эта модель не вызывает инструменты: чтобы выполнить план, выберите провайдера с инструментами.",
    tasks_label: "Задачи",
    tasks_done: "{done} из {total} готово",
    tasks_dropped: "отброшено: {n}",
    plan_completed: "План выполнен",
    change_asks: "Исполнитель просит изменить план",
    change_approve: "Одобрить",
    change_keep: "Оставить план",
    change_why: "Почему:",
    change_drop: "Отбросить шаг {task}: «{title}»",
    change_modify: "Переформулировать шаг {task}: «{title}» → «{new}»",
    change_check: "Проверять шаг {task} «{title}» командой `{new}` вместо запланированной `{old}`",
    change_replace: "Заменить открытые шаги на новые: {n}",
    mcp_label: "Вопрос от MCP-сервера",
    mcp_open: "Откройте эту страницу в браузере, затем примите:",
    mcp_accept: "Принять",
    mcp_decline: "Отклонить",
    mcp_cancel: "Отмена",
    stopped_label: "Исполнитель остановился, не закончив задачи",
    continue_work: "Продолжить",
    stop_reasons: [
        "Он дал ответ, не закончив открытые задачи.",
        "Проверка шага не прошла, и её не исправили.",
        "Много раундов подряд он ничего не менял и не смотрел ничего нового.",
        "Он раз за разом повторял один и тот же вызов инструмента.",
        "Достигнут предел раундов инструментов на один ход.",
        "Во время хода произошёл сбой у провайдера модели.",
        "Вы остановили ход.",
        "Ход прервался (Preflight закрыли или перезапустили).",
    ],
    tool_running: "выполняется…",
    tool_failed: "ошибка",
    lines: "строк: {n}",
    summarised: "Ранние сообщения сжаты",
    chats_label: "Чаты",
    search_prompt: "Поиск",
    no_chats: "Чатов пока нет",
    nothing_found: "Ничего не найдено",
    key_send: "отправить",
    key_stop: "стоп",
    key_choose: "выбрать",
    key_confirm: "подтвердить",
    key_chats: "чаты",
    key_new: "новый",
    key_tools: "инструменты",
    key_cancel_plan: "отменить план",
    key_scroll: "прокрутка",
    key_quit: "выход",
    key_open: "открыть",
    key_close: "закрыть",
    key_back: "назад",
    key_delete: "удалить",
    delete_confirm: "Удалить этот чат? Enter — удалить, Esc — оставить",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_locale_variables_choose_the_language_in_posix_order() {
        let cases: &[(&[(&str, &str)], Language)] = &[
            (&[], Language::English),
            (&[("LANG", "ru_RU.UTF-8")], Language::Russian),
            (&[("LANG", "en_US.UTF-8")], Language::English),
            (&[("LC_ALL", "ru_RU.UTF-8"), ("LANG", "en_US.UTF-8")], Language::Russian),
            (&[("LC_ALL", ""), ("LC_MESSAGES", "en_GB"), ("LANG", "ru_RU")], Language::English),
            (&[("LANG", "C.UTF-8")], Language::English),
        ];
        for (vars, expected) in cases {
            let var = |name: &str| {
                vars.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string())
            };
            assert_eq!(Language::from_locale(var), *expected, "{vars:?}");
        }
    }

    #[test]
    fn fill_replaces_every_named_slot() {
        assert_eq!(fill(EN.tasks_done, &[("done", &1), ("total", &3)]), "1 of 3 done");
        assert_eq!(fill(RU.tasks_done, &[("done", &1), ("total", &3)]), "1 из 3 готово");
    }
}
