// The chat's model (issue 50): the engine's list grouped by provider (configured models
// first, a provider that did not answer kept with its configured models and its error in
// words), the picker's keyboard, its refusal with what to do, its wait while a turn runs;
// the divider a switch leaves in the chat; the planner's model in the chat's options.
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ChatOptions } from "../components/ChatOptions";
import { Messages } from "../components/Messages";
import { ModelDivider } from "../components/ModelDivider";
import { ModelPicker, type ModelPickerProps } from "../components/ModelPicker";
import type { ModelChoice } from "../generated/ModelChoice";
import type { ModelList } from "../generated/ModelList";
import { initialState } from "../lib/chatState";
import { applyLanguage } from "../lib/i18n";
import { choiceOfValue, choiceValue, groupModels, sameChoice } from "../lib/modelChoice";
import type { ModelsController } from "../lib/useModels";
import { assistant, chat, user, view } from "./fixtures";

const LIST: ModelList = {
  data: [
    { provider: "default", model: "qwen2.5:7b", context_window: 32768, vision: false, tools: true, configured: true },
    { provider: "default", model: "llama3.2", vision: false, tools: true, configured: false },
    // Out of order on purpose: a served model before a configured one.
    { provider: "cloud", model: "gpt-4o-mini", context_window: 128000, vision: true, tools: true, configured: false },
    { provider: "cloud", model: "gpt-4o", context_window: 128000, vision: true, tools: true, configured: true },
    { provider: "offline", model: "mistral", vision: true, tools: true, configured: true },
  ],
  providers: [
    { name: "default", kind: "openai", base_url: "http://127.0.0.1:11434/v1", model: "qwen2.5:7b" },
    { name: "cloud", kind: "openai", base_url: "https://api.openai.com/v1", model: "gpt-4o" },
    { name: "offline", kind: "openai", base_url: "http://10.0.0.9/v1", model: "mistral", error: { code: "ERR_PROVIDER_UNAVAILABLE", message: "connection refused" } },
    { name: "empty", kind: "anthropic", base_url: "", model: "claude" },
  ],
};

const models = (list: ModelList | null = LIST): ModelsController => ({ list, loading: false, error: null, load: vi.fn() });

function show(props: Partial<ModelPickerProps> = {}) {
  const onChoose = vi.fn(async (_: ModelChoice | null) => null as string | null);
  const onOpenSettings = vi.fn();
  const all: ModelPickerProps = { choice: null, defaultModel: "qwen2.5:7b", models: models(), busy: false, onChoose, onOpenSettings, ...props };
  render(<ModelPicker {...all} />);
  return { onChoose, onOpenSettings, models: all.models };
}

const options = () => screen.getAllByRole("option").map((option) => option.querySelector(".model-option-name")?.textContent ?? option.textContent);

afterEach(() => applyLanguage("en"));

describe("the model list, by provider", () => {
  it("keeps the engine's order of providers, configured models first, and a provider with no models", () => {
    const groups = groupModels(LIST);
    expect(groups.map((group) => [group.provider, group.options.map((o) => o.model)])).toEqual([
      ["default", ["qwen2.5:7b", "llama3.2"]],
      ["cloud", ["gpt-4o", "gpt-4o-mini"]],
      ["offline", ["mistral"]],
      ["empty", []],
    ]);
    expect(groups[2]!.state?.error?.code).toBe("ERR_PROVIDER_UNAVAILABLE");
  });

  it("groups models of a provider the engine did not name, after the named ones", () => {
    const groups = groupModels({ data: [{ provider: "ghost", model: "m", vision: false, tools: true, configured: true }], providers: [] });
    expect(groups).toEqual([{ provider: "ghost", state: null, options: [expect.objectContaining({ model: "m" })] }]);
  });

  it("tells choices apart and names them in a select's value", () => {
    expect(sameChoice(null, null)).toBe(true);
    expect(sameChoice(null, { provider: "default", model: "m" })).toBe(false);
    expect(sameChoice({ provider: "a", model: "m" }, { provider: "a", model: "m" })).toBe(true);
    expect(sameChoice({ provider: "a", model: "m" }, { provider: "b", model: "m" })).toBe(false);
    for (const choice of [null, { provider: "cloud", model: 'odd"name' }]) expect(choiceOfValue(choiceValue(choice))).toEqual(choice);
  });
});

describe("the model picker", () => {
  it("names the default's model when the chat chose none, and the chosen one with its provider", () => {
    show();
    expect(screen.getByTestId("model-name").textContent).toBe("qwen2.5:7b");
    expect(screen.getByTestId("model-button").textContent).toContain("default");
    document.body.innerHTML = "";
    show({ choice: { provider: "cloud", model: "gpt-4o" } });
    expect(screen.getByTestId("model-name").textContent).toBe("gpt-4o");
    expect(screen.getByTestId("model-button").textContent).toContain("cloud");
    expect(screen.getByTestId("model-button").textContent).toContain("sees images");
  });

  it("opens on the chat's choice: each provider's models, badges, windows, and a provider that did not answer", () => {
    const { models: controller } = show({ choice: { provider: "cloud", model: "gpt-4o" } });
    fireEvent.click(screen.getByTestId("model-button"));
    expect(controller.load).toHaveBeenCalled();
    expect(screen.getByTestId("model-button").getAttribute("aria-expanded")).toBe("true");
    expect(options()).toEqual(["The default: qwen2.5:7b", "qwen2.5:7b", "llama3.2", "gpt-4o", "gpt-4o-mini", "mistral"]);
    const listbox = screen.getByRole("listbox");
    expect(document.activeElement).toBe(listbox);
    const selected = screen.getAllByRole("option").filter((option) => option.getAttribute("aria-selected") === "true");
    expect(selected.map((option) => option.dataset.model)).toEqual(["gpt-4o"]);
    expect(listbox.getAttribute("aria-activedescendant")).toBe(selected[0]!.id);
    const gpt = selected[0]!;
    expect(gpt.textContent).toContain("sees images");
    expect(gpt.textContent).toContain("128k context");
    expect(screen.getByText("llama3.2").parentElement!.textContent).toContain("listed by the server");
    // The offline provider's error in words, not its code; its configured model still offered.
    const said = screen.getByTestId("model-group-error");
    expect(said.textContent).toBe("The model provider cannot be reached. Its configured models can still be chosen.");
    expect(said.getAttribute("title")).toContain("connection refused");
    expect(screen.getAllByRole("group").map((group) => group.getAttribute("aria-labelledby") && document.getElementById(group.getAttribute("aria-labelledby")!)?.textContent)).toEqual([
      "default · openai",
      "cloud · openai",
      "offline · openai",
      "empty · anthropic",
    ]);
  });

  it("walks the list with the keyboard and chooses with Enter; Escape closes it and gives the focus back", async () => {
    const { onChoose } = show();
    const button = screen.getByTestId("model-button");
    fireEvent.keyDown(button, { key: "ArrowDown" });
    const listbox = screen.getByRole("listbox");
    fireEvent.keyDown(listbox, { key: "Escape" });
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(document.activeElement).toBe(button);
    fireEvent.click(button);
    fireEvent.keyDown(screen.getByRole("listbox"), { key: "End" });
    fireEvent.keyDown(screen.getByRole("listbox"), { key: "ArrowUp" });
    fireEvent.keyDown(screen.getByRole("listbox"), { key: "ArrowUp" });
    fireEvent.keyDown(screen.getByRole("listbox"), { key: "Enter" });
    await waitFor(() => expect(onChoose).toHaveBeenCalledWith({ provider: "cloud", model: "gpt-4o" }));
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  it("goes back to the default, and does nothing when the choice is the chat's own", async () => {
    const { onChoose } = show({ choice: { provider: "cloud", model: "gpt-4o" } });
    fireEvent.click(screen.getByTestId("model-button"));
    fireEvent.click(document.querySelector('[data-provider="cloud"][data-model="gpt-4o"]')!);
    fireEvent.click(screen.getByTestId("model-button"));
    fireEvent.click(screen.getByTestId("model-option-default"));
    await waitFor(() => expect(onChoose).toHaveBeenCalledTimes(1));
    expect(onChoose).toHaveBeenCalledWith(null);
  });

  it("says a refusal under the button, with Try again and Settings", async () => {
    const onChoose = vi.fn(async () => "The request was not valid — unknown model");
    const { onOpenSettings } = show({ onChoose });
    fireEvent.click(screen.getByTestId("model-button"));
    fireEvent.click(screen.getByText("mistral"));
    expect((await screen.findByTestId("model-error")).textContent).toContain("unknown model");
    expect(screen.getByTestId("model-error").getAttribute("role")).toBe("alert");
    fireEvent.click(screen.getByTestId("model-retry"));
    await waitFor(() => expect(onChoose).toHaveBeenCalledTimes(2));
    expect(onChoose).toHaveBeenLastCalledWith({ provider: "offline", model: "mistral" });
    fireEvent.click(screen.getByText("Open Settings"));
    expect(onOpenSettings).toHaveBeenCalled();
  });

  it("waits while a turn runs, and says why in words", () => {
    const { onChoose, models: controller } = show({ busy: true });
    const button = screen.getByTestId("model-button");
    expect(button.getAttribute("aria-disabled")).toBe("true");
    expect(button.getAttribute("title")).toBe("The model can be changed when the running turn ends.");
    fireEvent.click(button);
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(screen.getByTestId("model-busy").textContent).toBe("The model can be changed when the running turn ends.");
    expect(controller.load).not.toHaveBeenCalled();
    expect(onChoose).not.toHaveBeenCalled();
  });

  it("closes the open list when a turn starts", () => {
    const props: ModelPickerProps = { choice: null, defaultModel: "qwen2.5:7b", models: models(), busy: false, onChoose: vi.fn(async () => null), onOpenSettings: vi.fn() };
    const { rerender } = render(<ModelPicker {...props} />);
    fireEvent.click(screen.getByTestId("model-button"));
    expect(screen.getByRole("listbox")).toBeTruthy();
    rerender(<ModelPicker {...props} busy />);
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  it("shows the default row while the list is read for the first time", () => {
    show({ models: { ...models(null), loading: true } });
    fireEvent.click(screen.getByTestId("model-button"));
    expect(options()).toEqual(["The default: qwen2.5:7b"]);
    expect(screen.getByText("Asking the providers for their models…")).toBeTruthy();
  });
});

describe("a switch in the chat", () => {
  it("is a line between the messages, never a card", () => {
    const noop = () => {};
    const actions = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };
    const switched = assistant("n1", "", { notice: { kind: "model_switched", planner: false, model: { provider: "cloud", model: "gpt-4o" } } });
    render(<Messages state={initialState(view([user("u1", "hi"), assistant("a1", "hello"), switched, user("u2", "again")]), [])} actions={actions} />);
    expect(screen.getByTestId("model-divider").textContent).toBe("Model: gpt-4o (cloud) from here on");
    expect(screen.queryByTestId("notice-card")).toBeNull();
    const order = [...document.querySelectorAll("[data-message-id]")].map((element) => element.getAttribute("data-message-id"));
    expect(order.indexOf("n1")).toBeGreaterThan(order.indexOf("a1"));
  });

  it("is a quiet line: the model and its provider from here on, in the window's language", () => {
    render(<ModelDivider messageId="n1" notice={{ kind: "model_switched", planner: false, model: { provider: "cloud", model: "gpt-4o" } }} />);
    expect(screen.getByTestId("model-divider").textContent).toBe("Model: gpt-4o (cloud) from here on");
    document.body.innerHTML = "";
    applyLanguage("ru");
    render(<ModelDivider messageId="n1" notice={{ kind: "model_switched", planner: true, model: { provider: "default", model: "qwen2.5:7b" } }} />);
    expect(screen.getByTestId("model-divider").textContent).toBe("Модель планировщика: qwen2.5:7b (по умолчанию) с этого места");
  });
});

describe("the planner's model in the chat's options", () => {
  it("offers the settings' planner and every provider's models, and sends the choice", () => {
    const onChange = vi.fn();
    render(<ChatOptions chat={chat} onChange={onChange} models={models()} />);
    const select = screen.getByTestId("planner-model") as HTMLSelectElement;
    expect([...select.querySelectorAll("optgroup")].map((group) => group.label)).toEqual(["default", "cloud", "offline", "empty"]);
    fireEvent.change(select, { target: { value: choiceValue({ provider: "cloud", model: "gpt-4o" }) } });
    expect(onChange).toHaveBeenLastCalledWith({ planner_model: { provider: "cloud", model: "gpt-4o" } });
    fireEvent.change(select, { target: { value: "" } });
    expect(onChange).toHaveBeenLastCalledWith({ planner_model: null });
  });

  it("keeps a choice the list does not hold, waits while a turn runs, and is gone without plan mode", () => {
    const controller = models(null);
    const { rerender } = render(<ChatOptions chat={{ ...chat, planner_model: { provider: "cloud", model: "o3" } }} onChange={vi.fn()} models={controller} busy />);
    const select = screen.getByTestId("planner-model") as HTMLSelectElement;
    expect(select.disabled).toBe(true);
    expect(select.selectedOptions[0]!.textContent).toBe("o3");
    fireEvent.focus(select);
    expect(controller.load).toHaveBeenCalled();
    rerender(<ChatOptions chat={{ ...chat, plan_mode: false }} onChange={vi.fn()} models={controller} />);
    expect(screen.queryByTestId("planner-model")).toBeNull();
  });
});
