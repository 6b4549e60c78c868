// The settings screen (first run, and from the sidebar): the window's language and theme
// (applied at once, kept by the window), the model provider (kind, base URL, model, API key —
// which goes to the OS key store, never a file) and plan mode; then the other providers a chat
// may choose a model of, the embedded models and MCP servers.
import { useState } from "preact/hooks";

import type { AppSettings } from "../generated/AppSettings";
import type { ProviderChoice } from "../generated/ProviderChoice";
import type { SettingsUpdate } from "../generated/SettingsUpdate";
import type { EmbeddedModel } from "../generated/desktop/EmbeddedModel";
import type { ProviderCheck } from "../generated/ProviderCheck";
import { asApiError } from "../lib/api";
import { McpServers, type McpSource } from "./McpServers";
import { HooksSettings } from "./HooksSettings";
import { NamedProviders, type ProvidersSource } from "./NamedProviders";
import { fieldOf, fieldProblems, ProviderTest, useProviderTest, type FieldName } from "./ProviderTest";
import { ModelManager, isInstalled, type ModelInstalls } from "./ModelManager";
import { embeddedModel } from "./ModelNotice";
import { storedLanguageChoice, setLanguageChoice, t, type LanguageChoice } from "../lib/i18n";
import { storedThemeChoice, setThemeChoice, type ThemeChoice } from "../lib/theme";
import { NotificationChoices } from "./NotificationChoices";
import { Skills, type SkillsSource } from "./Skills";

export interface SettingsProps {
  settings: AppSettings;
  /** The embedded catalog, with what the models folder holds. */
  models: EmbeddedModel[];
  /** The window's model installs (Settings → Models). */
  installs: ModelInstalls;
  /** Settings → MCP servers, while the engine runs. */
  mcp?: McpSource;
  /** Settings → Providers, while the engine runs. */
  providers?: ProvidersSource;
  /** Settings → Skills, while the engine runs (the open chat's, else the user's own). */
  skills?: SkillsSource;
  /** A provider was added, changed or removed. */
  onProvidersChanged?: () => void;
  modelsDir: string;
  firstRun: boolean;
  /** Why the engine is not running, when it is not. */
  problem: string | null;
  /** `mcp`: open at MCP servers (a chat's server asks to sign in); `providers`: at the
   *  providers (a chat's "prices not set"). */
  at?: "mcp" | "providers";
  onSave: (update: SettingsUpdate) => Promise<string | null>;
  /** "Test connection": the form's provider asked for its models (nothing saved). */
  onCheck?: (update: SettingsUpdate) => Promise<ProviderCheck>;
  onClose: (() => void) | null;
}

/** A field's message under it, tied to it for screen readers. */
function FieldProblem({ field, text }: { field: FieldName; text: string | undefined }) {
  if (!text) return null;
  return (
    <span class="field-error small" id={`problem-${field}`} data-testid={`problem-${field}`}>
      {text}
    </span>
  );
}

const providers = (): { value: ProviderChoice; label: string; baseUrl: string }[] => [
  { value: "openai", label: t("settings.providerOpenai"), baseUrl: "http://127.0.0.1:11434/v1" },
  { value: "anthropic", label: "Anthropic", baseUrl: "https://api.anthropic.com" },
  { value: "embedded", label: t("settings.providerEmbedded"), baseUrl: "" },
];

/** One choice of the window: the stored value, applied (and kept) when changed. */
function WindowChoice<T extends string>({ label, testId, initial, apply, options }: { label: string; testId: string; initial: T; apply: (choice: T) => void; options: [T, string][] }) {
  const [value, setValue] = useState<T>(initial);
  return (
    <label>
      {label}
      <select
        data-testid={testId}
        value={value}
        onChange={(event) => {
          const choice = event.currentTarget.value as T;
          setValue(choice);
          apply(choice);
        }}
      >
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Settings → Language and theme: each applies at once and is kept by the window. */
function WindowChoices() {
  const languages: [LanguageChoice, string][] = [["system", t("settings.system")], ["en", "English"], ["ru", "Русский"]];
  const themes: [ThemeChoice, string][] = [["system", t("settings.system")], ["light", t("settings.light")], ["dark", t("settings.dark")]];
  return (
    <fieldset data-testid="window-choices">
      <legend>{t("settings.window")}</legend>
      <WindowChoice label={t("settings.language")} testId="language" initial={storedLanguageChoice()} apply={setLanguageChoice} options={languages} />
      <WindowChoice label={t("settings.theme")} testId="theme" initial={storedThemeChoice()} apply={setThemeChoice} options={themes} />
    </fieldset>
  );
}

export function Settings({ settings, models, installs, mcp, providers: named, skills, onProvidersChanged, modelsDir, firstRun, problem, at, onSave, onCheck, onClose }: SettingsProps) {
  const [form, setForm] = useState<SettingsUpdate>({
    provider: settings.provider,
    base_url: settings.base_url,
    model: settings.model,
    plan_mode: settings.plan_mode,
    auto_approve: settings.auto_approve,
    api_key: "",
  });
  const [error, setError] = useState<string | null>(problem && t("settings.notRunning", { detail: problem }));
  const [saving, setSaving] = useState(false);
  const [checked, setChecked] = useState(false);
  const test = useProviderTest(onCheck ?? (() => Promise.reject(new Error("no connection test here"))), asApiError);
  const remote = form.provider !== "embedded";
  const update = (change: Partial<SettingsUpdate>) => {
    setForm({ ...form, ...change });
    test.reset();
  };
  // The form's own problems show once a save was tried; a failed test marks its field.
  const problems = checked ? fieldProblems(form) : {};
  const failedField = test.state.kind === "failed" ? fieldOf(test.state.error) : null;
  const invalid = (field: FieldName) => problems[field] !== undefined || failedField === field;
  const offered = test.state.kind === "ok" ? test.state.check.models : [];
  const chosen = embeddedModel(form.model, models);
  // A model name typed for a remote provider means nothing to the embedded one: its default then.
  const embeddedValue = chosen?.id ?? models.find((entry) => entry.default)?.id ?? "";
  const provider = providers().find((entry) => entry.value === form.provider);
  return (
    <main class="settings" data-testid="settings">
      <h1>{firstRun ? t("settings.welcome") : t("settings.title")}</h1>
      {firstRun && <p class="muted">{t("settings.welcomeHint")}</p>}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setChecked(true);
          if (Object.keys(fieldProblems(form)).length > 0) return;
          setSaving(true);
          setError(await onSave({ ...form, api_key: form.api_key?.trim() ? form.api_key.trim() : undefined }));
          setSaving(false);
        }}
      >
        <WindowChoices />
        <NotificationChoices />
        <fieldset>
          <legend>{t("settings.modelProvider")}</legend>
          <label>
            {t("settings.provider")}
            <select
              data-testid="provider"
              value={form.provider}
              onChange={(event) => {
                const next = event.currentTarget.value as ProviderChoice;
                // The model field names a different thing per kind: keep it only within a kind.
                update({ provider: next, model: next === settings.provider ? settings.model : "", base_url: next === settings.provider ? settings.base_url : "" });
              }}
            >
              {providers().map((entry) => (
                <option key={entry.value} value={entry.value}>
                  {entry.label}
                </option>
              ))}
            </select>
          </label>
          {!remote && (
            <>
              <label>
                {t("settings.model")}
                <select data-testid="embedded-model" value={embeddedValue} onChange={(event) => update({ model: event.currentTarget.value })}>
                  {models.map((entry) => (
                    <option key={entry.id} value={entry.id}>
                      {entry.name}
                      {entry.default ? t("models.default") : ""}
                      {isInstalled(entry, installs.states[entry.id]) ? "" : t("settings.notInstalledSuffix")}
                    </option>
                  ))}
                </select>
              </label>
              <p class="muted small" data-testid="embedded-help">
                {t("settings.embeddedHelp")}
                {chosen && !isInstalled(chosen, installs.states[chosen.id]) && ` ${t("settings.embeddedMissing")}`}
              </p>
            </>
          )}
          {remote && (
            <>
              <label>
                {t("settings.baseUrl")}
                <input
                  data-testid="base-url"
                  placeholder={provider?.baseUrl}
                  value={form.base_url}
                  aria-invalid={invalid("base_url")}
                  aria-describedby={problems.base_url ? "problem-base_url" : undefined}
                  onInput={(event) => update({ base_url: event.currentTarget.value })}
                />
                <FieldProblem field="base_url" text={problems.base_url} />
              </label>
              <label>
                {t("settings.model")}
                <input
                  data-testid="model"
                  placeholder={t("settings.modelPlaceholder")}
                  value={form.model}
                  list="provider-models"
                  aria-invalid={invalid("model")}
                  aria-describedby={problems.model ? "problem-model" : undefined}
                  onInput={(event) => setForm({ ...form, model: event.currentTarget.value })}
                />
                <datalist id="provider-models">
                  {offered.map((model) => (
                    <option key={model} value={model} />
                  ))}
                </datalist>
                <FieldProblem field="model" text={problems.model} />
              </label>
              <label>
                {t("settings.apiKey")}
                <input
                  data-testid="api-key"
                  type="password"
                  autocomplete="off"
                  placeholder={settings.api_key_stored_in ? t("settings.apiKeyStored", { store: settings.api_key_stored_in }) : t("settings.apiKeyNone")}
                  value={form.api_key ?? ""}
                  aria-invalid={invalid("api_key")}
                  onInput={(event) => update({ api_key: event.currentTarget.value })}
                />
              </label>
              {onCheck && <ProviderTest state={test.state} onTest={() => void test.run(form)} />}
            </>
          )}
        </fieldset>
        <fieldset>
          <legend>{t("settings.planMode")}</legend>
          <label class="check">
            <input type="checkbox" data-testid="plan-mode" checked={form.plan_mode} onChange={(event) => update({ plan_mode: event.currentTarget.checked })} />
            {t("settings.planModeHint")}
          </label>
          <label class="check">
            <input type="checkbox" data-testid="auto-approve" checked={form.auto_approve} disabled={!form.plan_mode} onChange={(event) => update({ auto_approve: event.currentTarget.checked })} />
            {t("settings.autoApprove")}
          </label>
        </fieldset>
        {error && (
          <p class="error" role="alert" data-testid="settings-error">
            {error}
          </p>
        )}
        <div class="row">
          <button type="submit" class="primary" data-testid="save-settings" disabled={saving}>
            {saving ? t("settings.saving") : firstRun ? t("settings.start") : t("settings.save")}
          </button>
          {onClose && (
            <button type="button" class="secondary" onClick={onClose}>
              {t("settings.close")}
            </button>
          )}
        </div>
        <p class="muted small">{t("settings.keptIn", { path: settings.config_path })}</p>
      </form>
      {named && !firstRun && !problem && <NamedProviders source={named} onChanged={() => onProvidersChanged?.()} shown={at === "providers"} />}
      <ModelManager models={models} installs={installs} modelsDir={modelsDir} />
      {mcp && !firstRun && !problem && <McpServers source={mcp} shown={at === "mcp"} />}
      {skills && !firstRun && !problem && <Skills source={skills} />}
      {mcp && !firstRun && !problem && <HooksSettings />}
    </main>
  );
}
