// The window in Russian: the cards, the task panel and the message box say everything in the
// seed's own words, with no English left over; and Settings → Language switches a rendered
// window at once, without a restart.
import { fireEvent, render, screen, within } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { Composer } from "../components/Composer";
import { ElicitationCard } from "../components/ElicitationCard";
import { RemoteSignIn } from "../components/McpSignIn";
import { PlanCard } from "../components/PlanCard";
import { QuestionCard } from "../components/QuestionCard";
import { Settings } from "../components/Settings";
import { TaskPanel } from "../components/TaskPanel";
import type { Task } from "../generated/Task";
import { describeError } from "../lib/errorText";
import { applyLanguage, useLanguage } from "../lib/i18n";
import { statusText } from "../lib/chatState";
import { plan, settings } from "./fixtures";

/** Latin words a Russian window still shows on purpose: names, formats and keys. */
const ALLOWED = new Set(["Preflight", "Enter", "Shift", "SHA", "API", "URL", "MCP", "JSON", "CSV", "OpenAI", "Ollama", "Anthropic", "csv", "Writer", "from_writer"]);

function englishLeft(root: HTMLElement): string[] {
  const words = (root.textContent ?? "").match(/[A-Za-z][A-Za-z_]{2,}/g) ?? [];
  return words.filter((word) => !ALLOWED.has(word));
}

const russianPlan = () =>
  plan({
    title: "Выгрузка заказов в CSV",
    aim: "Заказы выгружаются в CSV",
    steps: [
      { action: "Добавить маршрут", expected: "маршрут отвечает" },
      { action: "Написать тест", expected: "тест проходит" },
    ],
    libraries: [{ name: "csv", purpose: "писать строки", usage: "csv::Writer::from_writer" }],
    sandbox: { policy: "create", notes: "пример данных", dir: "/работа/.песочница", exists: false },
  });

describe("the window in Russian", () => {
  it("the question card: «Свой вариант» and «Отменить план»", () => {
    applyLanguage("ru");
    const questions = [{ id: "q1", question: "Какой формат?", options: ["CSV", "JSON", "Эксель"], answer: null }];
    render(<QuestionCard questions={questions} active planRunning onAnswer={vi.fn()} onCancel={vi.fn()} />);
    const card = screen.getByTestId("question-card");
    expect(within(card).getByText("Свой вариант")).toBeTruthy();
    expect(within(card).getByTestId("cancel-plan").textContent).toBe("Отменить план");
    expect(card.textContent).toContain("Планировщик спрашивает");
    expect(englishLeft(card)).toEqual([]);
  });

  it("the plan card: steps, libraries, sandbox and its buttons", () => {
    applyLanguage("ru");
    render(<PlanCard chatId="chat-1" plan={russianPlan()} active planRunning onApprove={vi.fn()} onRevise={vi.fn()} onCancel={vi.fn()} onEdit={vi.fn()} />);
    const card = screen.getByTestId("plan-card");
    expect(within(card).getAllByRole("columnheader").map((cell) => cell.textContent)).toEqual(["Библиотека", "Назначение", "Использование"]);
    expect(card.textContent).toContain("Песочница: Создать песочницу в /работа/.песочница — пример данных");
    expect(card.textContent).toContain("Ждёт одобрения · редакция 1");
    expect(screen.getByTestId("approve-plan").textContent).toBe("Одобрить");
    expect(englishLeft(card)).toEqual([]);
  });

  it("the task panel: «n из m готово»", () => {
    applyLanguage("ru");
    const tasks: Task[] = [
      { id: 1, title: "найти вызовы", status: "done", origin: "plan" },
      { id: 2, title: "прочитать схему", status: "active", origin: "plan" },
      { id: 3, title: "добавить поле", status: "dropped", origin: "plan" },
    ];
    render(<TaskPanel tasks={tasks} finished={false} />);
    expect(screen.getByTestId("task-count").textContent).toBe("1 из 3 готово, отброшено: 1");
    expect(englishLeft(screen.getByTestId("task-panel"))).toEqual([]);
  });

  it("an MCP server's question and a remote server's sign-in", () => {
    applyLanguage("ru");
    const schema = { properties: { name: { type: "string", title: "Имя" }, plan: { type: "string", title: "Тариф", enum: ["базовый", "полный"] } }, required: ["name"] };
    render(<ElicitationCard elicitation={{ id: "el_1", question: { mode: "form", server: "трекер", message: "Кто вы?", schema } }} onAnswer={vi.fn(async () => null)} onOpenUrl={vi.fn(async () => null)} />);
    const card = screen.getByTestId("elicitation-card");
    expect(within(card).getByRole("heading").textContent).toBe("Сервер трекер спрашивает");
    expect(screen.getByTestId("elicitation-accept").textContent).toBe("Принять");
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    expect(screen.getByTestId("elicitation-error").textContent).toBe("Поле «Имя» обязательно.");
    expect(englishLeft(card)).toEqual([]);
    const remote = { url: "https://mcp.пример.рф/mcp", signed_in: false, sign_in: { state: "pending", authorization_url: "https://вход.пример.рф/" } } as const;
    render(<RemoteSignIn name="трекер" remote={remote} started={undefined} busy={false} onSignIn={vi.fn()} onSignOut={vi.fn()} />);
    const signIn = screen.getByTestId("mcp-remote");
    expect(signIn.textContent).toContain("Завершите вход в браузере.");
    const words = signIn.cloneNode(true) as HTMLElement;
    words.querySelectorAll("code").forEach((address) => address.remove());
    expect(englishLeft(words), "but the addresses").toEqual([]);
    expect(describeError({ code: "ERR_MCP_SIGN_IN", message: "" })).toBe("Удалённый MCP-сервер просит вас войти.");
  });

  it("the message box, the status line and an error banner", () => {
    applyLanguage("ru");
    render(<Composer locked running={false} awaitingApproval={false} onSend={vi.fn(async () => true)} onStop={vi.fn()} />);
    fireEvent.click(screen.getByTestId("send"));
    expect(screen.getByRole("alert").textContent).toBe("Сначала ответьте на вопросы планировщика");
    expect(statusText("planning")).toBe("Составляем план…");
    expect(describeError({ code: "ERR_PROVIDER_UNAVAILABLE", message: "connection refused (http://127.0.0.1:9)" })).toBe(
      "Провайдер модели недоступен. — connection refused (http://127.0.0.1:9)",
    );
  });
});


/** The window's root as App has it: it re-renders everything when the language changes. */
function Window() {
  useLanguage();
  const installs = { states: {}, install: vi.fn(), cancel: vi.fn(), remove: vi.fn() };
  return (
    <>
      <Settings settings={settings} models={[]} installs={installs} modelsDir="/m" firstRun={false} problem={null} onSave={vi.fn(async () => null)} onClose={vi.fn()} />
      <TaskPanel tasks={[]} finished={false} />
    </>
  );
}

describe("Settings → Language", () => {
  it("switches the rendered window at once and back", () => {
    render(<Window />);
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Settings");
    const select = screen.getByTestId("language") as HTMLSelectElement;
    expect(Array.from(select.options).map((option) => option.textContent)).toEqual(["System", "English", "Русский"]);
    fireEvent.change(select, { target: { value: "ru" } });
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Настройки");
    expect(screen.getByTestId("task-panel").textContent).toContain("Списка задач пока нет");
    expect(localStorage.getItem("preflight.language")).toBe("ru");
    fireEvent.change(screen.getByTestId("language"), { target: { value: "en" } });
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Settings");
  });
});
