// The settings screen (first run, and from the sidebar): the model provider (kind, base
// URL, model, API key — which goes to the OS key store, never a file) and plan mode.
// Sections are separate so the screen can grow (MCP servers, planner model, themes).
import { useState } from "preact/hooks";

import type { AppSettings } from "../generated/AppSettings";
import type { ProviderChoice } from "../generated/ProviderChoice";
import type { SettingsUpdate } from "../generated/SettingsUpdate";
import type { EmbeddedModel } from "../generated/desktop/EmbeddedModel";
import { McpServers, type McpSource } from "./McpServers";
import { ModelManager, isInstalled, type ModelInstalls } from "./ModelManager";
import { embeddedModel } from "./ModelNotice";

export interface SettingsProps {
  settings: AppSettings;
  /** The embedded catalog, with what the models folder holds. */
  models: EmbeddedModel[];
  /** The window's model installs (Settings → Models). */
  installs: ModelInstalls;
  /** Settings → MCP servers, while the engine runs. */
  mcp?: McpSource;
  modelsDir: string;
  firstRun: boolean;
  /** Why the engine is not running, when it is not. */
  problem: string | null;
  onSave: (update: SettingsUpdate) => Promise<string | null>;
  onClose: (() => void) | null;
}

const PROVIDERS: { value: ProviderChoice; label: string; baseUrl: string }[] = [
  { value: "openai", label: "OpenAI-compatible (OpenAI, Ollama, llama.cpp, vLLM, LM Studio)", baseUrl: "http://127.0.0.1:11434/v1" },
  { value: "anthropic", label: "Anthropic", baseUrl: "https://api.anthropic.com" },
  { value: "embedded", label: "Embedded model (offline)", baseUrl: "" },
];

export function Settings({ settings, models, installs, mcp, modelsDir, firstRun, problem, onSave, onClose }: SettingsProps) {
  const [form, setForm] = useState<SettingsUpdate>({
    provider: settings.provider,
    base_url: settings.base_url,
    model: settings.model,
    plan_mode: settings.plan_mode,
    auto_approve: settings.auto_approve,
    api_key: "",
  });
  const [error, setError] = useState<string | null>(problem);
  const [saving, setSaving] = useState(false);
  const remote = form.provider !== "embedded";
  const update = (change: Partial<SettingsUpdate>) => setForm({ ...form, ...change });
  const chosen = embeddedModel(form.model, models);
  // A model name typed for a remote provider means nothing to the embedded one: its default then.
  const embeddedValue = chosen?.id ?? models.find((entry) => entry.default)?.id ?? "";
  const provider = PROVIDERS.find((entry) => entry.value === form.provider);
  return (
    <main class="settings" data-testid="settings">
      <h1>{firstRun ? "Welcome to Preflight" : "Settings"}</h1>
      {firstRun && <p class="muted">Choose the model Preflight talks to. You can change this later in Settings.</p>}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setSaving(true);
          setError(await onSave({ ...form, api_key: form.api_key?.trim() ? form.api_key.trim() : undefined }));
          setSaving(false);
        }}
      >
        <fieldset>
          <legend>Model provider</legend>
          <label>
            Provider
            <select
              data-testid="provider"
              value={form.provider}
              onChange={(event) => {
                const next = event.currentTarget.value as ProviderChoice;
                // The model field names a different thing per kind: keep it only within a kind.
                update({ provider: next, model: next === settings.provider ? settings.model : "", base_url: next === settings.provider ? settings.base_url : "" });
              }}
            >
              {PROVIDERS.map((entry) => (
                <option key={entry.value} value={entry.value}>
                  {entry.label}
                </option>
              ))}
            </select>
          </label>
          {!remote && (
            <>
              <label>
                Model
                <select data-testid="embedded-model" value={embeddedValue} onChange={(event) => update({ model: event.currentTarget.value })}>
                  {models.map((entry) => (
                    <option key={entry.id} value={entry.id}>
                      {entry.name}
                      {entry.default ? " (default)" : ""}
                      {isInstalled(entry, installs.states[entry.id]) ? "" : " — not installed"}
                    </option>
                  ))}
                </select>
              </label>
              <p class="muted small" data-testid="embedded-help">
                Runs on this computer with no account and no network. It is tiny: plans are rough and it answers without tools. A real
                model gives far better plans.
                {chosen && !isInstalled(chosen, installs.states[chosen.id]) && " This one is not installed yet: install it under Models below."}
              </p>
            </>
          )}
          {remote && (
            <>
              <label>
                Base URL
                <input data-testid="base-url" placeholder={provider?.baseUrl} value={form.base_url} onInput={(event) => update({ base_url: event.currentTarget.value })} />
              </label>
              <label>
                Model
                <input data-testid="model" placeholder="e.g. qwen2.5:7b" value={form.model} onInput={(event) => update({ model: event.currentTarget.value })} />
              </label>
              <label>
                API key
                <input
                  data-testid="api-key"
                  type="password"
                  autocomplete="off"
                  placeholder={settings.api_key_stored_in ? `Stored in ${settings.api_key_stored_in}; type to replace` : "Not needed for a local server"}
                  value={form.api_key ?? ""}
                  onInput={(event) => update({ api_key: event.currentTarget.value })}
                />
              </label>
            </>
          )}
        </fieldset>
        <fieldset>
          <legend>Plan mode</legend>
          <label class="check">
            <input type="checkbox" data-testid="plan-mode" checked={form.plan_mode} onChange={(event) => update({ plan_mode: event.currentTarget.checked })} />
            Plan before acting in new chats (the planner may ask questions, then proposes a plan)
          </label>
          <label class="check">
            <input type="checkbox" data-testid="auto-approve" checked={form.auto_approve} disabled={!form.plan_mode} onChange={(event) => update({ auto_approve: event.currentTarget.checked })} />
            Approve plans automatically
          </label>
        </fieldset>
        {error && (
          <p class="error" role="alert" data-testid="settings-error">
            {error}
          </p>
        )}
        <div class="row">
          <button type="submit" class="primary" data-testid="save-settings" disabled={saving}>
            {saving ? "Saving…" : firstRun ? "Start" : "Save"}
          </button>
          {onClose && (
            <button type="button" class="secondary" onClick={onClose}>
              Close
            </button>
          )}
        </div>
        <p class="muted small">Settings are kept in {settings.config_path}.</p>
      </form>
      <ModelManager models={models} installs={installs} modelsDir={modelsDir} />
      {mcp && !firstRun && !problem && <McpServers source={mcp} />}
    </main>
  );
}
