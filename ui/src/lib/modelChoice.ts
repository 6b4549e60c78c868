// A model per chat (DESIGN §15), as the picker shows it: the engine's model list grouped by
// provider (the default first, then `config.toml`'s order; configured models before those the
// server listed), a provider whose server did not answer kept with its error and its
// configured models, and how a choice is named. Pure: the list in, groups and words out.
import type { ModelChoice } from "../generated/ModelChoice";
import type { ModelList } from "../generated/ModelList";
import type { ModelOption } from "../generated/ModelOption";
import type { ProviderState } from "../generated/ProviderState";
import { t } from "./i18n";

/** `[provider]`'s name in the list. */
export const DEFAULT_PROVIDER = "default";

export interface ModelGroup {
  provider: string;
  /** What the engine said of the provider (its kind, its error); null when it named none. */
  state: ProviderState | null;
  options: ModelOption[];
}

/** The list by provider, in the engine's order of providers; within one, configured first. */
export function groupModels(list: ModelList): ModelGroup[] {
  const groups = new Map<string, ModelGroup>();
  for (const state of list.providers) groups.set(state.name, { provider: state.name, state, options: [] });
  for (const option of list.data) {
    let group = groups.get(option.provider);
    if (!group) {
      group = { provider: option.provider, state: null, options: [] };
      groups.set(option.provider, group);
    }
    group.options.push(option);
  }
  for (const group of groups.values()) {
    // Stable: the engine's order within each kind stays.
    group.options = [...group.options.filter((o) => o.configured), ...group.options.filter((o) => !o.configured)];
  }
  return [...groups.values()];
}

/** Whether two choices name the same model (null: the configured default). */
export function sameChoice(a: ModelChoice | null, b: ModelChoice | null): boolean {
  if (a === null || b === null) return a === b;
  return a.provider === b.provider && a.model === b.model;
}

/** A provider as the window names it: `default` is "default", others by their name. */
export function providerLabel(provider: string): string {
  return provider === DEFAULT_PROVIDER ? t("picker.defaultProvider") : provider;
}

/** "gpt-4o (cloud)" */
export function choiceText(choice: ModelChoice): string {
  return t("picker.choice", { model: choice.model, provider: providerLabel(choice.provider) });
}

/** The option of `list` for `choice`, when the list has it. */
export function optionOf(list: ModelList | null, choice: ModelChoice | null): ModelOption | null {
  if (!list || !choice) return null;
  return list.data.find((option) => sameChoice(option, choice)) ?? null;
}

/** A value for a `<select>` that names `choice` ("" for the default). */
export function choiceValue(choice: ModelChoice | null): string {
  return choice === null ? "" : JSON.stringify([choice.provider, choice.model]);
}

/** The choice a `choiceValue` names. */
export function choiceOfValue(value: string): ModelChoice | null {
  if (value === "") return null;
  const [provider, model] = JSON.parse(value) as [string, string];
  return { provider, model };
}
