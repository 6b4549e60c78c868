// The honest note shown while the embedded tiny model answers: it works offline, and a real
// model plans far better. Persistent (not dismissible) so that nobody judges plans without it.
// A model that is not installed gets a button that installs it, with the install's progress.
import type { EmbeddedModel } from "../generated/desktop/EmbeddedModel";
import { InstallButton, InstallStatus, isInstalled, type ModelInstalls } from "./ModelManager";

export interface ModelNoticeProps {
  /** The configured embedded model's id (empty: the default). */
  model: string;
  models: EmbeddedModel[];
  installs: ModelInstalls;
  onSettings: () => void;
}

/** The catalog entry the settings name, if it is one. */
export function embeddedModel(model: string, models: EmbeddedModel[]): EmbeddedModel | undefined {
  const id = model.trim();
  return models.find((entry) => (id === "" ? entry.default : entry.id === id));
}

/** `Install SmolLM2-135M-Instruct (98 MB)` */
export function installLabel(entry: EmbeddedModel): string {
  return `Install ${entry.name.split(" ")[0]} (${Math.round(entry.size / 1e6)} MB)`;
}

export function ModelNotice({ model, models, installs, onSettings }: ModelNoticeProps) {
  const entry = embeddedModel(model, models);
  const name = entry?.name ?? (model.trim() || "the embedded model");
  const state = entry ? installs.states[entry.id] : undefined;
  const installed = entry ? isInstalled(entry, state) : true;
  return (
    <div class="model-notice" role="note" data-testid="model-notice">
      <div class="model-notice-text">
        <span>
          <strong>Running on {name}, a tiny model inside Preflight.</strong> It works offline, but its questions and plans are rough and
          it answers in plain text without tools. A real model — Ollama, an OpenAI-compatible server, or Anthropic — gives far better
          plans.
          {!installed && state?.kind !== "installing" && " It is not installed yet."}
        </span>
        {entry && state && state.kind !== "removed" && <InstallStatus model={entry} state={state} />}
      </div>
      {entry && !installed && <InstallButton model={entry} installs={installs} label={installLabel(entry)} />}
      <button type="button" class="secondary small" data-testid="notice-settings" onClick={onSettings}>
        Choose a model…
      </button>
    </div>
  );
}
