// The honest note shown while the embedded tiny model answers: it works offline, and a real
// model plans far better. Persistent (not dismissible) so that nobody judges plans without it.
import type { EmbeddedModel } from "../generated/desktop/EmbeddedModel";

export interface ModelNoticeProps {
  /** The configured embedded model's id (empty: the default). */
  model: string;
  models: EmbeddedModel[];
  onSettings: () => void;
}

/** The catalog entry the settings name, if it is one. */
export function embeddedModel(model: string, models: EmbeddedModel[]): EmbeddedModel | undefined {
  const id = model.trim();
  return models.find((entry) => (id === "" ? entry.default : entry.id === id));
}

export function ModelNotice({ model, models, onSettings }: ModelNoticeProps) {
  const entry = embeddedModel(model, models);
  const name = entry?.name ?? (model.trim() || "the embedded model");
  return (
    <div class="model-notice" role="note" data-testid="model-notice">
      <span>
        <strong>Running on {name}, a tiny model inside Preflight.</strong> It works offline, but its questions and plans are rough and
        it answers in plain text without tools. A real model — Ollama, an OpenAI-compatible server, or Anthropic — gives far better
        plans.
        {entry && !entry.installed && (
          <>
            {" "}
            It is not installed yet: run <code>{entry.fetch_command}</code>.
          </>
        )}
      </span>
      <button type="button" class="secondary small" data-testid="notice-settings" onClick={onSettings}>
        Choose a model…
      </button>
    </div>
  );
}
