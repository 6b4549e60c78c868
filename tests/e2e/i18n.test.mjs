// The window in Russian, end to end in the real window: switched in Settings (and kept
// across a restart), then a chat planned — the question card, the plan card and the task
// panel in the seed's Russian words; and the language taken from the system locale. Each
// app gets its own XDG_DATA_HOME, so the webview's storage (where the window keeps the
// choice) is the test's own. Screenshots go to $E2E_ARTIFACTS and docs/screenshots.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { checkA11y } from "./a11y.mjs";
import { explainFailures, openaiConfig, PLANNER, planReply, publish, questionsReply, startApp, text, toolCall, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const QUESTIONS = [
  { id: "q1", question: "В каком формате выгружать?", options: ["CSV", "JSON", "Excel"] },
  { id: "q2", question: "Какие заказы включить?", options: ["Все", "Только за прошлый месяц", "Вместе с архивными"] },
];

const PLAN = {
  title: "Выгрузка заказов в CSV",
  aim: "Заказы можно скачать файлом CSV по адресу /export",
  steps: [
    { action: "Разобраться, как хранятся заказы", expected: "формат orders.csv понятен" },
    { action: "Добавить маршрут /export", expected: "GET /export отвечает CSV" },
    { action: "Написать тест", expected: "тест выгрузки проходит" },
  ],
  libraries: [{ name: "csv", purpose: "записать строки", usage: "csv::Writer::from_writer(response)" }],
  sandbox: { policy: "create", notes: "копия orders.csv с примерами строк" },
};


/** Settings → Language → `value`, then back to the chats. */
async function chooseLanguage(app, value, close) {
  await app.click('[data-testid="open-settings"]');
  await app.click(`[data-testid="language"] option[value="${value}"]`);
  await app.byText(".settings h1", value === "ru" ? "Настройки" : "Settings");
  if (close) await app.click(".settings button.secondary", close);
}

test("Russian from Settings, kept across a restart: questions → own answer → plan → approve → tasks, all in Russian", async () => {
  const data = mkdtempSync(join(tmpdir(), "preflight-e2e-i18n-data-"));
  const script = (workspace) => ({
    routes: [
      { when: PLANNER, replies: [toolCall("mcp_filesystem_list_directory", { path: workspace }, "Смотрю. "), questionsReply(QUESTIONS), planReply(PLAN)] },
      {
        replies: [
          toolCall("turn_plan", { op: "done", id: 1, outcome: "одна строка на заказ" }),
          toolCall("turn_plan", { op: "done", id: 2 }),
          toolCall("turn_plan", { op: "done", id: 3 }),
          text("Готово: `GET /export` теперь отвечает CSV.\n"),
        ],
      },
    ],
  });
  const options = { config: (url) => openaiConfig(url), script, env: () => ({ XDG_DATA_HOME: data }) };
  try {
    // The first run of this window: English (the C locale), switched to Russian.
    const first = await startApp({ name: "i18n-switch", ...options });
    try {
      await first.byText('[data-testid="new-chat"]', "New chat");
      await chooseLanguage(first, "ru");
      await first.byText('[data-testid="window-choices"] legend', "Язык и тема");
      publish(await first.screenshot("settings"), "ru-settings.png");
    } finally {
      await first.stop();
    }

    // The restart keeps the choice.
    const app = await startApp({ name: "i18n-plan", ...options });
    try {
      assert.equal(await app.session.execute("return document.documentElement.lang"), "ru");
      await app.click('[data-testid="new-chat"]', "Новый чат");
      const path = await waitFor(() => app.find('[data-testid="workspace-path"]'), "the workspace field");
      await path.type(app.workspace + KEYS.enter);
      await waitFor(async () => (await path.property("value")) === app.workspace && (await app.count(".error")) === 0, "the workspace set");

      await (await app.find('[data-testid="message-box"]')).type("Добавь выгрузку заказов в CSV" + KEYS.enter);
      await app.waitText('[data-testid="status-line"]', /Составляем план…|Ждём ваших ответов/);
      const card = await app.find('[data-testid="question-card"].active');
      const words = await card.text();
      for (const expected of ["Планировщик спрашивает", "Свой вариант", "Отменить план", "В каком формате выгружать?"]) {
        assert.ok(words.includes(expected), `the question card says ${expected}: ${words}`);
      }
      await app.click('[data-testid="send"]');
      assert.equal(await app.text('[data-testid="composer-notice"]'), "Сначала ответьте на вопросы планировщика");
      publish(await app.screenshot("questions"), "ru-questions.png");
      await checkA11y(app, "the question card in Russian");

      // One ready answer, one own.
      await app.click('[data-testid="question-card"].active button.option', "CSV");
      await app.byText('[data-testid="question-card"].active .option.chosen', "CSV");
      const own = await app.session.findAll('[data-testid="question-card"].active button.own');
      await own[1].click();
      await (await app.find('[data-testid="question-card"].active .own-input')).type("Только оплаченные, без возвратов");
      await app.click('[data-testid="question-card"].active .own-form button[type="submit"]', "Ответить");

      // The plan card.
      const plan = await app.find('[data-testid="plan-card"].active');
      await app.byText('[data-testid="plan-card"].active .badge', "Ждёт одобрения · редакция 1");
      const planWords = await plan.text();
      for (const expected of ["Цель:", "Библиотека", "Назначение", "Использование", "Песочница: Создать песочницу", "Одобрить", "Переработать…", "Изменить шаги", "Отменить план"]) {
        assert.ok(planWords.includes(expected), `the plan card says ${expected}: ${planWords}`);
      }
      await app.byText('[data-testid="status-line"]', "Ждём вашего одобрения");
      publish(await app.screenshot("plan"), "ru-plan.png");
      await checkA11y(app, "the plan card in Russian");

      // Approve: the task panel ticks in Russian.
      await app.click('[data-testid="approve-plan"]', "Одобрить");
      await app.waitText('[data-testid="task-count"]', /^3 из 3 готово$/, 30_000);
      await app.byText('[data-testid="tasks-finished"]', "Все задачи завершены.");
      await app.byText(".task-panel .panel-title", "План");
      await app.byText(".message.assistant", "теперь отвечает CSV");
      await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
      await app.byText('[data-testid="tool-count"]', "3 вызова инструментов");
      await app.byText('[data-testid="task-summary"]', "список задач: готово 3");
      await app.byText('[data-testid="completion-card"]', "3 из 3 шагов по плану");
      publish(await app.screenshot("tasks"), "ru-tasks.png");
      await checkA11y(app, "the task panel in Russian");
    } finally {
      await app.stop();
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
});

/** Whether glibc's localedef is here: it builds the ru_RU.UTF-8 locale the next test runs in. */
const LOCALEDEF = spawnSync("localedef", ["--help"], { stdio: "ignore" }).status === 0;

test("the system locale picks the language: ru_RU starts the first-run screen in Russian", { skip: !LOCALEDEF && "no localedef to build ru_RU.UTF-8" }, async () => {
  // The locale is built for this test (LOCPATH), so the machine need not have it installed.
  const locales = mkdtempSync(join(tmpdir(), "preflight-e2e-locale-"));
  const built = spawnSync("localedef", ["-i", "ru_RU", "-f", "UTF-8", join(locales, "ru_RU.UTF-8")], { stdio: "inherit" });
  assert.equal(built.status, 0, "localedef built ru_RU.UTF-8");
  const app = await startApp({
    name: "i18n-system",
    config: null,
    script: () => ({ routes: [] }),
    env: (dir) => ({ XDG_DATA_HOME: join(dir, "data"), LOCPATH: locales, LC_ALL: "ru_RU.UTF-8", LANG: "ru_RU.UTF-8" }),
  });
  try {
    await app.byText(".settings h1", "Добро пожаловать в Preflight");
    const language = await app.find('[data-testid="language"]');
    assert.equal(await language.property("value"), "system");
    await app.byText('[data-testid="save-settings"]', "Начать");
    // An explicit English overrides the system at once.
    await app.click('[data-testid="language"] option[value="en"]');
    await app.byText(".settings h1", "Welcome to Preflight");
    await app.screenshot("first-run-en");
  } finally {
    await app.stop();
    rmSync(locales, { recursive: true, force: true });
  }
});
