//! `preflight chat --help`: the usage, the keys and the environment, in the user's language.

use crate::locale::Language;

/// The help text of `preflight chat`, in `language`.
pub fn help_text(language: Language) -> &'static str {
    match language {
        Language::English => EN,
        Language::Russian => RU,
    }
}

const EN: &str = "\
usage: preflight chat [--workspace DIR [--worktree]] [--no-bell] [CHAT_ID]

The chat in this terminal, full screen, over the same engine and data folder as
the window (so it does not start while the window or `preflight serve` runs on
that folder). Type a task: the planner asks or drafts a plan, you approve it,
and the task list ticks to done.

options:
  --workspace DIR   the folder a new chat works in
  --worktree        the new chat works in a git worktree of its own of DIR (a
                    git repository), on its own branch; your checkout is left
                    alone until you /merge (--no-worktree: not even when
                    config.toml's [workspace] worktrees says so)
  --no-bell         no bell (nor iTerm2/WezTerm/Ghostty notification, OSC 9)
                    when a card waits or a run ends in any chat
  CHAT_ID           open this chat instead of a new one
  -h, --help        show this text

keys:
  Enter             send; on a card, confirm the chosen row
  Alt+Enter, ^J     a new line in the message
  ←→ ↑↓ Tab         choose on a card (an option, Approve, Revise…, Cancel plan)
  Alt+↑↓            on a plan, the step under the cursor: what you type is a
                    comment on it; Revise sends every comment at once
  Esc               stop the running turn; leave an answer being typed
  ^X                cancel the plan while it is drafted, asked about or waiting
  ^G                a task's changes (the last finished task first): ←→ another
                    task, ↑↓ PgUp PgDn scroll, R restores the workspace to
                    before that task (asks y/N first), Esc closes
  ^L                the chat list: type to search, Enter opens, Del deletes
  ^N                a new chat
  ^T                tool calls shown whole or folded to a sentence
  PgUp PgDn ↑↓      scroll the chat (or a card taller than the screen)
  ^A ^E ^W ^U ^K    edit the input line
  ^C                quit

commands (typed as a message):
  /model            the models there are; the header says what the chat used
  /model NAME       this chat's model from here on (PROVIDER/NAME when two
                    providers have it; /model default: the configured one)
  /planner-model …  the same for the planner
  /prompts          the MCP servers' prompts; /NAME args sends one (these
                    commands win over a prompt of the same name: /SERVER:NAME)
  /resources        the MCP servers' resources; @SERVER:URI attaches one
  /diff             a chat in its own worktree: its changes since it started
  /merge [squash]   what merging its branch into the one it came from would do
                    (files, conflicts, your own changes in the way, the commit
                    message), then y/N; squash: one commit
  /keep             leave its work as a branch for your own git
  /recreate         make its worktree folder again from its branch

environment:
  PREFLIGHT_HOME    the data folder (default ~/.local/share/preflight)
  NO_COLOR          no colour
  LANG=ru_*         Russian
";

const RU: &str = "\
использование: preflight chat [--workspace ПАПКА [--worktree]] [--no-bell]
                             [ID_ЧАТА]

Чат в этом терминале, во весь экран, на том же движке и с той же папкой данных,
что и окно (поэтому он не запускается, пока с этой папкой работает окно или
`preflight serve`). Опишите задачу: планировщик задаст вопросы или составит
план, вы его одобрите, и список задач отметит сделанное.

параметры:
  --workspace ПАПКА папка, в которой работает новый чат
  --worktree        новый чат работает в своём git worktree этой ПАПКИ (git-
                    репозитория), на своей ветке; ваша рабочая копия не
                    меняется до /merge (--no-worktree: даже если так велит
                    [workspace] worktrees в config.toml)
  --no-bell         без звонка (и уведомления iTerm2/WezTerm/Ghostty, OSC 9),
                    когда в любом чате карточка ждёт ответа или работа кончилась
  ID_ЧАТА           открыть этот чат вместо нового
  -h, --help        показать этот текст

клавиши:
  Enter             отправить; на карточке — подтвердить выбранное
  Alt+Enter, ^J     новая строка в сообщении
  ←→ ↑↓ Tab         выбор на карточке (вариант, Одобрить, Переработать…, Отмена)
  Alt+↑↓            в плане — шаг под курсором: набранное станет комментарием
                    к нему; «Переработать» отправит все комментарии разом
  Esc               остановить ход; выйти из набора ответа
  ^X                отменить план, пока он составляется или ждёт ответа
  ^G                изменения задачи (сначала последней законченной): ←→ другая
                    задача, ↑↓ PgUp PgDn прокрутка, R возвращает рабочую
                    папку к состоянию до этой задачи (сначала спросит y/N),
                    Esc закрыть
  ^L                список чатов: поиск по набору, Enter открыть, Del удалить
  ^N                новый чат
  ^T                вызовы инструментов целиком или одной фразой
  PgUp PgDn ↑↓      прокрутка чата (или карточки выше экрана)
  ^A ^E ^W ^U ^K    правка строки ввода
  ^C                выход

команды (вводятся как сообщение):
  /model            какие есть модели; в заголовке — сколько потратил чат
  /model ИМЯ        модель этого чата с этого места (ПОСТАВЩИК/ИМЯ, если она
                    есть у двух; /model default — заданная в настройках)
  /planner-model …  то же для планировщика
  /prompts          промпты MCP-серверов; /ИМЯ аргументы отправляет промпт (эти
                    команды важнее одноимённого промпта: /СЕРВЕР:ИМЯ)
  /resources        ресурсы MCP-серверов; @СЕРВЕР:URI прикладывает ресурс
  /diff             чат в своём worktree: его изменения с момента начала
  /merge [squash]   что сделает слияние его ветки в исходную (файлы,
                    конфликты, ваши мешающие правки, сообщение коммита),
                    затем y/N; squash — одним коммитом
  /keep             оставить его работу веткой для вашего git
  /recreate         создать папку его worktree заново из ветки

окружение:
  PREFLIGHT_HOME    папка данных (по умолчанию ~/.local/share/preflight)
  NO_COLOR          без цвета
  LANG=ru_*         по-русски
";

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_width::UnicodeWidthStr;

    #[test]
    fn the_help_fits_80_columns_and_names_every_key_in_both_languages() {
        for language in [Language::English, Language::Russian] {
            let text = help_text(language);
            for line in text.lines() {
                assert!(line.width() <= 80, "{line:?}");
            }
            for key in [
                "--workspace",
                "--no-bell",
                "--worktree",
                "/merge [squash]",
                "/keep",
                "/recreate",
                "--help",
                "^G",
                "^L",
                "^X",
                "^T",
                "^C",
                "Esc",
                "y/N",
                "Alt+↑↓",
            ] {
                assert!(text.contains(key), "{language:?} names {key}");
            }
        }
    }
}
