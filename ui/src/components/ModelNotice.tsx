// The honest note shown while the embedded tiny model answers: it works offline, and a real
// model plans far better. Persistent (not dismissible) so that nobody judges plans without it.
// A model that is not installed gets a button that installs it, with the install's progress.
import type { EmbeddedModel } from "../generated/desktop/EmbeddedModel";
import { formatNumber, t } from "../lib/i18n";
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
  return t("models.installNamed", { name: entry.name.split(" ")[0] ?? entry.name, size: t("units.MB", { value: formatNumber(Math.round(entry.size / 1e6)) }) });
}

export function ModelNotice({ model, models, installs, onSettings }: ModelNoticeProps) {
  const entry = embeddedModel(model, models);
  const name = entry?.name ?? (model.trim() || t("notice.theEmbeddedModel"));
  const state = entry ? installs.states[entry.id] : undefined;
  const installed = entry ? isInstalled(entry, state) : true;
  return (
    <div class="model-notice" role="note" data-testid="model-notice">
      <div class="model-notice-text">
        <span>
          <strong>{t("notice.runningOn", { name })}</strong> {t("notice.body")}
          {!installed && state?.kind !== "installing" && ` ${t("notice.notInstalled")}`}
        </span>
        {entry && state && state.kind !== "removed" && <InstallStatus model={entry} state={state} />}
      </div>
      {entry && !installed && <InstallButton model={entry} installs={installs} label={installLabel(entry)} />}
      <button type="button" class="secondary small" data-testid="notice-settings" onClick={onSettings}>
        {t("notice.choose")}
      </button>
    </div>
  );
}
