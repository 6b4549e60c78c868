// Settings → Providers (DESIGN §15): the providers `config.toml` names beside the default
// (`[providers.NAME]`), whose models a chat may choose. Add one (name, kind, base URL, model,
// key, prices in USD per million tokens, whether it sees images), test its connection, edit
// it, remove it (asked twice). The form's own problems are said at their fields before
// anything is sent; the engine checks the rest and saves nothing when it refuses.
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

import type { NamedProviderSave } from "../generated/NamedProviderSave";
import type { NamedProviderView } from "../generated/NamedProviderView";
import type { ProviderCheck } from "../generated/ProviderCheck";
import type { SettingsUpdate } from "../generated/SettingsUpdate";
import { asApiError } from "../lib/api";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";
import { DEFAULT_PROVIDER } from "../lib/modelChoice";
import { formatCost } from "../lib/usage";
import { fieldOf, fieldProblems, ProviderTest, useProviderTest } from "./ProviderTest";

/** What the section calls (the desktop commands; a test passes its own). */
export interface ProvidersSource {
  load: () => Promise<NamedProviderView[]>;
  save: (save: NamedProviderSave) => Promise<NamedProviderView[]>;
  remove: (name: string) => Promise<NamedProviderView[]>;
  /** "Test connection": the provider asked for its models; nothing is saved. */
  check: (update: SettingsUpdate) => Promise<ProviderCheck>;
}

type Kind = "openai" | "anthropic";

/** The editor's fields as typed. */
export interface ProviderForm {
  name: string;
  provider: Kind;
  base_url: string;
  model: string;
  api_key: string;
  price_input: string;
  price_output: string;
  vision: boolean;
}

export type ProviderField = "name" | "base_url" | "model" | "api_key" | "price_input" | "price_output";

const EMPTY: ProviderForm = { name: "", provider: "openai", base_url: "", model: "", api_key: "", price_input: "", price_output: "", vision: true };
const NAME = /^[a-z0-9_-]{1,40}$/;

function formOf(view: NamedProviderView): ProviderForm {
  const price = (value: number | null) => (value === null ? "" : String(value));
  return {
    name: view.name,
    provider: view.provider === "anthropic" ? "anthropic" : "openai",
    base_url: view.base_url,
    model: view.model,
    api_key: "",
    price_input: price(view.price_input_per_mtok),
    price_output: price(view.price_output_per_mtok),
    vision: view.vision ?? true,
  };
}

/** What "Test connection" asks: the form's provider, as the settings' check takes it. */
function checkOf(form: { provider: Kind; base_url: string; model: string; api_key?: string }): SettingsUpdate {
  const key = form.api_key?.trim();
  return { provider: form.provider, base_url: form.base_url.trim(), model: form.model.trim(), plan_mode: false, auto_approve: false, api_key: key ? key : undefined };
}

/** A price field: blank (no price) or a number of dollars, at least 0. */
function priceOf(text: string): number | undefined | null {
  const trimmed = text.trim().replace(",", ".");
  if (trimmed === "") return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** The form's own problems, by field; `taken` are the names already in use (when adding). */
export function providerProblems(form: ProviderForm, taken: string[]): Partial<Record<ProviderField, string>> {
  const problems: Partial<Record<ProviderField, string>> = { ...fieldProblems(checkOf(form)) };
  const name = form.name.trim();
  if (!NAME.test(name) || name === DEFAULT_PROVIDER) problems.name = t("providers.check.badName");
  else if (taken.includes(name)) problems.name = t("providers.check.nameTaken", { name });
  if (priceOf(form.price_input) === null) problems.price_input = t("providers.check.badPrice");
  if (priceOf(form.price_output) === null) problems.price_output = t("providers.check.badPrice");
  return problems;
}

/** What a save sends; the form has no problems. */
export function saveOf(form: ProviderForm): NamedProviderSave {
  const key = form.api_key.trim();
  return {
    name: form.name.trim(),
    provider: form.provider,
    base_url: form.base_url.trim(),
    model: form.model.trim(),
    api_key: key === "" ? undefined : key,
    price_input_per_mtok: priceOf(form.price_input) ?? undefined,
    price_output_per_mtok: priceOf(form.price_output) ?? undefined,
    // Unsaid, a provider's models see images: only "no" is written.
    vision: form.vision ? undefined : false,
  };
}

/** "$3 in · $15 out per million tokens", or that no prices are set. */
function pricesText(view: NamedProviderView): string {
  const { price_input_per_mtok: input, price_output_per_mtok: output } = view;
  if (input === null && output === null) return t("providers.noPrices");
  const said = (value: number | null) => (value === null ? "—" : formatCost(value));
  return t("providers.prices", { input: said(input), output: said(output) });
}

type Editing = { replaces: string | null; form: ProviderForm };

export interface NamedProvidersProps {
  source: ProvidersSource;
  /** A provider was added, changed or removed (the engine was opened again on it). */
  onChanged: () => void;
  /** Scrolled into view when it appears (the chat's "prices not set"). */
  shown?: boolean;
}

export function NamedProviders({ source, onChanged, shown = false }: NamedProvidersProps) {
  const [providers, setProviders] = useState<NamedProviderView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [asking, setAsking] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const section = useRef<HTMLElement>(null);
  const act = async (action: () => Promise<NamedProviderView[]>, after?: () => void): Promise<boolean> => {
    setBusy(true);
    try {
      setProviders(await action());
      setError(null);
      after?.();
      return true;
    } catch (caught) {
      setError(describeError(asApiError(caught)));
      return false;
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => void act(source.load), [source]);
  useEffect(() => {
    if (shown) section.current?.scrollIntoView?.({ block: "start" });
  }, [shown]);
  const edit = (next: Editing | null) => {
    setError(null);
    setAsking(null);
    setEditing(next);
  };
  const taken = (providers ?? []).map((view) => view.name);
  return (
    <section class="named-providers" data-testid="named-providers" aria-label={t("providers.title")} ref={section}>
      <h2>{t("providers.title")}</h2>
      <p class="muted small">{t("providers.intro")}</p>
      {providers?.length === 0 && <p class="small muted">{t("providers.none")}</p>}
      <ul class="provider-list">
        {providers?.map((view) => (
          <ProviderItem
            key={view.name}
            view={view}
            busy={busy}
            asking={asking === view.name}
            check={source.check}
            onEdit={() => edit({ replaces: view.name, form: formOf(view) })}
            onAsk={(ask) => setAsking(ask ? view.name : null)}
            onRemove={() => void act(() => source.remove(view.name), onChanged)}
          />
        ))}
      </ul>
      {error && !editing && (
        <p class="error" role="alert" data-testid="providers-error">
          {error}
        </p>
      )}
      {editing ? (
        <ProviderEditor
          editing={editing}
          taken={editing.replaces === null ? taken : []}
          busy={busy}
          error={error}
          check={source.check}
          onChange={(form) => setEditing({ ...editing, form })}
          onSave={(save) => void act(() => source.save(save), () => {
            setEditing(null);
            onChanged();
          })}
          onCancel={() => edit(null)}
        />
      ) : (
        <button type="button" class="secondary" data-testid="provider-add" onClick={() => edit({ replaces: null, form: EMPTY })}>
          {t("providers.add")}
        </button>
      )}
    </section>
  );
}

interface ItemProps {
  view: NamedProviderView;
  busy: boolean;
  /** The removal was asked once: it waits for the second word. */
  asking: boolean;
  check: ProvidersSource["check"];
  onEdit: () => void;
  onAsk: (ask: boolean) => void;
  onRemove: () => void;
}

function ProviderItem({ view, busy, asking, check, onEdit, onAsk, onRemove }: ItemProps) {
  const test = useProviderTest(check, asApiError);
  return (
    <li class="provider-item" data-testid="named-provider" data-name={view.name}>
      <div class="row">
        <strong>{view.name}</strong>
        <span class="badge">{view.provider === "anthropic" ? "Anthropic" : t("providers.openai")}</span>
        <span class="badge">{view.vision === false ? t("providers.noImages") : t("providers.seesImages")}</span>
      </div>
      <p class="small">
        <code>{view.model}</code> · <span class="muted">{view.base_url || t("providers.kindDefaultUrl")}</span>
      </p>
      <p class="small muted" data-testid="provider-prices">
        {pricesText(view)}
        {view.api_key_stored_in && ` · ${t("providers.keyIn", { store: view.api_key_stored_in })}`}
      </p>
      {asking ? (
        <div class="row remove-ask" role="group" aria-label={t("providers.removeAsk", { name: view.name })}>
          <span class="small">{t("providers.removeAsk", { name: view.name })}</span>
          <button type="button" class="danger small" disabled={busy} data-testid="provider-remove-confirm" onClick={onRemove}>
            {t("providers.removeYes")}
          </button>
          <button type="button" class="secondary small" onClick={() => onAsk(false)}>
            {t("providers.keep")}
          </button>
        </div>
      ) : (
        <div class="row">
          <button type="button" class="secondary small" disabled={busy} data-testid="provider-edit" onClick={onEdit}>
            {t("providers.edit")}
          </button>
          <button type="button" class="secondary small" disabled={busy} data-testid="provider-remove" onClick={() => onAsk(true)}>
            {t("providers.remove")}
          </button>
        </div>
      )}
      <ProviderTest state={test.state} onTest={() => void test.run(checkOf({ ...view, provider: view.provider === "anthropic" ? "anthropic" : "openai" }))} />
    </li>
  );
}

interface EditorProps {
  editing: Editing;
  taken: string[];
  busy: boolean;
  /** The engine's refusal of the last save. */
  error: string | null;
  check: ProvidersSource["check"];
  onChange: (form: ProviderForm) => void;
  onSave: (save: NamedProviderSave) => void;
  onCancel: () => void;
}

function ProviderEditor({ editing, taken, busy, error, check, onChange, onSave, onCancel }: EditorProps) {
  const [tried, setTried] = useState(false);
  const test = useProviderTest(check, asApiError);
  const { form } = editing;
  const problems = tried ? providerProblems(form, taken) : {};
  const failedField = test.state.kind === "failed" ? fieldOf(test.state.error) : null;
  const change = (next: Partial<ProviderForm>) => {
    onChange({ ...form, ...next });
    test.reset();
  };
  const offered = test.state.kind === "ok" ? test.state.check.models : [];
  const field = (name: ProviderField, label: string, input: JSX.InputHTMLAttributes<HTMLInputElement>) => (
    <label>
      {label}
      <input
        data-testid={`provider-${name.replace("_", "-")}`}
        aria-invalid={problems[name] !== undefined || failedField === name}
        aria-describedby={problems[name] ? `provider-problem-${name}` : undefined}
        {...input}
      />
      {problems[name] && (
        <span class="field-error small" id={`provider-problem-${name}`} data-testid={`provider-problem-${name}`}>
          {problems[name]}
        </span>
      )}
    </label>
  );
  return (
    <form
      class="provider-editor"
      data-testid="provider-editor"
      onSubmit={(event) => {
        event.preventDefault();
        setTried(true);
        if (Object.keys(providerProblems(form, taken)).length === 0) onSave(saveOf(form));
      }}
    >
      <fieldset>
        <legend>{editing.replaces ? t("providers.editNamed", { name: editing.replaces }) : t("providers.addTitle")}</legend>
        {field("name", t("providers.name"), {
          value: form.name,
          readOnly: editing.replaces !== null,
          placeholder: "cloud",
          onInput: (event) => change({ name: event.currentTarget.value }),
        })}
        <label>
          {t("settings.provider")}
          <select data-testid="provider-kind" value={form.provider} onChange={(event) => change({ provider: event.currentTarget.value as Kind })}>
            <option value="openai">{t("settings.providerOpenai")}</option>
            <option value="anthropic">Anthropic</option>
          </select>
        </label>
        {field("base_url", t("settings.baseUrl"), {
          value: form.base_url,
          placeholder: form.provider === "anthropic" ? "https://api.anthropic.com" : "https://api.openai.com/v1",
          onInput: (event) => change({ base_url: event.currentTarget.value }),
        })}
        {field("model", t("settings.model"), {
          value: form.model,
          list: "named-provider-models",
          placeholder: t("settings.modelPlaceholder"),
          onInput: (event) => onChange({ ...form, model: event.currentTarget.value }),
        })}
        <datalist id="named-provider-models">
          {offered.map((model) => (
            <option key={model} value={model} />
          ))}
        </datalist>
        {field("api_key", t("settings.apiKey"), {
          type: "password",
          autocomplete: "off",
          value: form.api_key,
          placeholder: editing.replaces ? t("providers.keyKept") : t("settings.apiKeyNone"),
          onInput: (event) => change({ api_key: event.currentTarget.value }),
        })}
        <div class="row price-row">
          {field("price_input", t("providers.priceInput"), { value: form.price_input, inputMode: "decimal", placeholder: "3", onInput: (event) => onChange({ ...form, price_input: event.currentTarget.value }) })}
          {field("price_output", t("providers.priceOutput"), { value: form.price_output, inputMode: "decimal", placeholder: "15", onInput: (event) => onChange({ ...form, price_output: event.currentTarget.value }) })}
        </div>
        <label class="check">
          <input type="checkbox" data-testid="provider-vision" checked={form.vision} onChange={(event) => onChange({ ...form, vision: event.currentTarget.checked })} />
          {t("providers.vision")}
        </label>
        <ProviderTest state={test.state} onTest={() => void test.run(checkOf(form))} />
        {error && (
          <p class="error" role="alert" data-testid="provider-save-error">
            {t("providers.notSaved", { detail: error })}
          </p>
        )}
        <div class="row">
          <button type="submit" class="primary" disabled={busy} data-testid="provider-save">
            {busy ? t("settings.saving") : t("settings.save")}
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            {t("mcp.cancel")}
          </button>
        </div>
      </fieldset>
    </form>
  );
}
