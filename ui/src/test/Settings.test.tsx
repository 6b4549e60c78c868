import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { ChatOptions } from "../components/ChatOptions";
import { ModelNotice } from "../components/ModelNotice";
import { Settings } from "../components/Settings";
import type { AppSettings } from "../generated/AppSettings";
import type { Chat } from "../generated/Chat";
import type { EmbeddedModel } from "../generated/desktop/EmbeddedModel";
import type { ModelInstalls } from "../components/ModelManager";

const models: EmbeddedModel[] = [
  { id: "smollm2", name: "SmolLM2-135M-Instruct (Q4_1)", default: true, installed: true, size: 98_362_432, sha256: "b179c952".padEnd(64, "0") },
  { id: "gemma3", name: "Gemma 3 270M (Q4_K_M)", default: false, installed: false, size: 253_113_024, sha256: "a5fd3b62".padEnd(64, "0") },
];

const installs = (): ModelInstalls => ({ states: {}, install: vi.fn(), cancel: vi.fn(), remove: vi.fn() });

const embedded: AppSettings = {
  configured: true,
  provider: "embedded",
  base_url: "",
  model: "",
  plan_mode: true,
  auto_approve: false,
  api_key_stored_in: null,
  config_path: "/home/u/.local/share/preflight/config.toml",
};

describe("the embedded model in the window", () => {
  it("the notice names the model, says a real model plans better, and installs a missing one", () => {
    const onSettings = vi.fn();
    const { unmount } = render(<ModelNotice model="" models={models} installs={installs()} onSettings={onSettings} />);
    const notice = screen.getByTestId("model-notice").textContent ?? "";
    expect(notice).toContain("SmolLM2-135M-Instruct");
    expect(notice).toContain("far better plans");
    expect(notice).not.toContain("not installed");
    fireEvent.click(screen.getByTestId("notice-settings"));
    expect(onSettings).toHaveBeenCalled();
    unmount();
    const missing = installs();
    render(<ModelNotice model="gemma3" models={models} installs={missing} onSettings={onSettings} />);
    expect(screen.getByTestId("model-notice").textContent).toContain("not installed yet");
    expect(screen.getByTestId("model-notice").textContent).not.toContain("preflight model fetch");
    fireEvent.click(screen.getByText("Install Gemma (253 MB)"));
    expect(missing.install).toHaveBeenCalledWith("gemma3");
  });

  it("settings switch from the embedded model to a provider and back, with the model list", async () => {
    const onSave = vi.fn(async () => null);
    render(<Settings settings={embedded} models={models} installs={installs()} modelsDir="/m" firstRun={false} problem={null} onSave={onSave} onClose={null} />);
    const select = screen.getByTestId("embedded-model") as HTMLSelectElement;
    expect(select.value).toBe("smollm2");
    expect(Array.from(select.options).map((o) => o.textContent)).toEqual([
      "SmolLM2-135M-Instruct (Q4_1) (default)",
      "Gemma 3 270M (Q4_K_M) — not installed",
    ]);
    fireEvent.change(select, { target: { value: "gemma3" } });
    expect(screen.getByTestId("embedded-help").textContent).toContain("install it under Models below");

    fireEvent.change(screen.getByTestId("provider"), { target: { value: "openai" } });
    expect(screen.queryByTestId("embedded-model")).toBeNull();
    fireEvent.input(screen.getByTestId("model"), { target: { value: "qwen2.5:7b" } });
    fireEvent.click(screen.getByTestId("save-settings"));
    await waitFor(() => expect(onSave).toHaveBeenCalled());
    expect(onSave.mock.calls[0]).toEqual([
      { provider: "openai", base_url: "", model: "qwen2.5:7b", plan_mode: true, auto_approve: false, api_key: undefined },
    ]);
  });
});

describe("ChatOptions", () => {
  const chat: Chat = {
    id: "c1",
    title: "T",
    workspace: null,
    scope: [],
    plan_mode: true,
    auto_approve: false,
    save_plans: false,
    model: null,
    planner_model: null,
    created_at: "2026-11-30T00:00:00Z",
    updated_at: "2026-11-30T00:00:00Z",
  };

  it("sends one switch at a time and greys out what does not apply", () => {
    const onChange = vi.fn();
    const { rerender } = render(<ChatOptions chat={chat} onChange={onChange} />);
    expect((screen.getByTestId("chat-save-plans") as HTMLInputElement).disabled).toBe(true);
    fireEvent.click(screen.getByTestId("chat-auto-approve"));
    expect(onChange).toHaveBeenLastCalledWith({ auto_approve: true });
    fireEvent.click(screen.getByTestId("chat-plan-mode"));
    expect(onChange).toHaveBeenLastCalledWith({ plan_mode: false });
    rerender(<ChatOptions chat={{ ...chat, plan_mode: false, workspace: "/w" }} onChange={onChange} />);
    expect((screen.getByTestId("chat-auto-approve") as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByTestId("chat-save-plans") as HTMLInputElement).disabled).toBe(false);
  });
});

describe("the provider, checked where it is typed", () => {
  const openai: AppSettings = { ...embedded, provider: "openai", base_url: "http://127.0.0.1:11434/v1", model: "" };

  it("marks a missing model and a bad base URL at their fields, and saves nothing", async () => {
    const onSave = vi.fn(async () => null);
    render(<Settings settings={openai} models={models} installs={installs()} modelsDir="/m" firstRun={false} problem={null} onSave={onSave} onClose={null} />);
    fireEvent.input(screen.getByTestId("base-url"), { target: { value: "127.0.0.1:11434" } });
    fireEvent.click(screen.getByTestId("save-settings"));
    expect(screen.getByTestId("problem-model").textContent).toContain("Name the model");
    expect(screen.getByTestId("problem-base_url").textContent).toContain("http://");
    expect(screen.getByTestId("model").getAttribute("aria-invalid")).toBe("true");
    expect(onSave).not.toHaveBeenCalled();
  });

  it("tests the connection, offers the provider's models and says when the model is not one of them", async () => {
    const onCheck = vi.fn(async () => ({ models: ["llama3.2", "qwen2.5:7b"], model_served: false }));
    render(<Settings settings={{ ...openai, model: "mistral" }} models={models} installs={installs()} modelsDir="/m" firstRun={false} problem={null} onSave={async () => null} onCheck={onCheck} onClose={null} />);
    fireEvent.click(screen.getByTestId("test-connection"));
    expect((await screen.findByTestId("connection-ok")).textContent).toContain("serves 2 models");
    expect(screen.getByTestId("model-not-served").textContent).toContain("“mistral”");
    const offered = [...document.querySelectorAll("#provider-models option")].map((option) => option.getAttribute("value"));
    expect(offered).toEqual(["llama3.2", "qwen2.5:7b"]);
    expect(onCheck).toHaveBeenCalledWith(expect.objectContaining({ provider: "openai", model: "mistral" }));
  });

  it("says a refused key in words and marks the key field", async () => {
    const onCheck = vi.fn(async () => Promise.reject({ code: "ERR_PROVIDER_UNAUTHORIZED", message: "invalid api key" }));
    render(<Settings settings={{ ...openai, model: "m" }} models={models} installs={installs()} modelsDir="/m" firstRun={false} problem={null} onSave={async () => null} onCheck={onCheck} onClose={null} />);
    fireEvent.click(screen.getByTestId("test-connection"));
    const failed = await screen.findByTestId("connection-failed");
    expect(failed.textContent).not.toContain("ERR_");
    expect(failed.textContent).toContain("invalid api key");
    expect(screen.getByTestId("api-key").getAttribute("aria-invalid")).toBe("true");
  });
});
