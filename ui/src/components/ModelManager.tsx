// Settings → Models: the embedded catalog with what is installed, Install / Cancel / Remove
// (Remove asks first, with the model's size: the download is gone with it),
// and an install's progress (bytes, speed, the SHA-256 check). The installs live in the
// window (useModelInstalls, held by App), so the model notice and Settings show the same one.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

import type { EmbeddedModel } from "../generated/desktop/EmbeddedModel";
import type { ModelProgress } from "../generated/desktop/ModelProgress";
import { api, asApiError } from "../lib/api";
import { formatNumber, t } from "../lib/i18n";
import { Dialog } from "./Dialog";

/** What this window knows of a model's install beyond what `installed` says. */
export type InstallState =
  | { kind: "installing"; progress: ModelProgress | null }
  /** Installed and its SHA-256 checked by this window's install. */
  | { kind: "installed" }
  | { kind: "removed" }
  | { kind: "cancelled" }
  | { kind: "failed"; message: string };

export interface ModelInstalls {
  states: Record<string, InstallState | undefined>;
  install: (id: string) => void;
  cancel: (id: string) => void;
  remove: (id: string) => void;
}

/** The shell calls the installs make (lib/api.ts; a test passes its own). */
export type ModelClient = Pick<typeof api, "installModel" | "cancelModelInstall" | "removeModel">;

/** The installs of this window; `onChanged` runs after a model was installed or removed. */
export function useModelInstalls(onChanged: () => unknown, client: ModelClient = api): ModelInstalls {
  const [states, setStates] = useState<Record<string, InstallState | undefined>>({});
  const set = useCallback((id: string, state: InstallState | undefined) => setStates((all) => ({ ...all, [id]: state })), []);
  const install = (id: string) => {
    set(id, { kind: "installing", progress: null });
    // Progress may arrive after the answer: only an install still running takes it.
    const onProgress = (progress: ModelProgress) =>
      setStates((all) => (all[id]?.kind === "installing" ? { ...all, [id]: { kind: "installing", progress } } : all));
    client.installModel(id, onProgress).then(
      async () => {
        set(id, { kind: "installed" });
        await onChanged();
      },
      (error: unknown) => {
        const { code, message } = asApiError(error);
        set(id, code === "ERR_CANCELLED" ? { kind: "cancelled" } : { kind: "failed", message });
      },
    );
  };
  const cancel = (id: string) => void client.cancelModelInstall(id).catch(() => {});
  const remove = (id: string) => {
    client.removeModel(id).then(
      async () => {
        set(id, { kind: "removed" });
        await onChanged();
      },
      (error: unknown) => set(id, { kind: "failed", message: asApiError(error).message }),
    );
  };
  return { states, install, cancel, remove };
}

/** `98.4 MB` (Russian: `98,4 МБ`) */
export function megabytes(bytes: number): string {
  return t("units.MB", { value: formatNumber(bytes / 1e6, 1) });
}

/** The first 8 hex digits and an ellipsis. */
export function shortHash(sha256: string): string {
  return `${sha256.slice(0, 8)}…`;
}

/** Whether the model counts as installed, given what this window did to it since. */
export function isInstalled(model: EmbeddedModel, state: InstallState | undefined): boolean {
  if (state?.kind === "installed") return true;
  if (state?.kind === "installing" || state?.kind === "removed" || state?.kind === "cancelled") return false;
  return model.installed;
}

/** The line under a model: its install's progress, or where it stands. */
export function InstallStatus({ model, state }: { model: EmbeddedModel; state: InstallState | undefined }) {
  const testid = `model-status-${model.id}`;
  if (state?.kind === "installing") {
    const progress = state.progress;
    if (progress === null) {
      return (
        <div class="install-status" data-testid={testid}>
          <progress data-testid={`model-progress-${model.id}`} />
          <span>{t("models.asking")}</span>
        </div>
      );
    }
    const downloading = progress.phase === "downloading";
    return (
      <div class="install-status" data-testid={testid} data-phase={progress.phase}>
        {downloading ? (
          <progress data-testid={`model-progress-${model.id}`} value={progress.done} max={progress.total || 1} />
        ) : (
          <progress data-testid={`model-progress-${model.id}`} />
        )}
        <span>
          {downloading
            ? t("models.progress", { done: formatNumber(progress.done / 1e6, 1), total: megabytes(progress.total), speed: megabytes(progress.bytes_per_second) })
            : t("models.verifying")}
        </span>
      </div>
    );
  }
  const line =
    state?.kind === "failed" ? (
      <span class="install-error" role="alert">
        {t("models.failed", { detail: state.message })}
      </span>
    ) : state?.kind === "installed" ? (
      t("models.verified", { hash: shortHash(model.sha256) })
    ) : state?.kind === "cancelled" ? (
      t("models.cancelled")
    ) : isInstalled(model, state) ? (
      t("models.installed")
    ) : (
      t("models.notInstalled")
    );
  return (
    <div class="install-status" data-testid={testid} data-state={state?.kind ?? (model.installed ? "installed" : "absent")}>
      {line}
    </div>
  );
}

/** Install, Cancel or Remove, whichever applies. */
export function InstallButton({ model, installs, label }: { model: EmbeddedModel; installs: ModelInstalls; label?: string }) {
  const state = installs.states[model.id];
  if (state?.kind === "installing") {
    return (
      <button type="button" class="secondary small" data-testid={`model-cancel-${model.id}`} onClick={() => installs.cancel(model.id)}>
        {t("models.cancel")}
      </button>
    );
  }
  if (isInstalled(model, state)) return <RemoveButton model={model} installs={installs} />;
  return (
    <button type="button" class="primary small" data-testid={`model-install-${model.id}`} onClick={() => installs.install(model.id)}>
      {label ?? t("models.install")}
    </button>
  );
}

/** Remove, asked first: "Remove the 253 MB model?" with Cancel (focused) and Remove. */
function RemoveButton({ model, installs }: { model: EmbeddedModel; installs: ModelInstalls }) {
  const [asking, setAsking] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  // After the dialog took focus (its effect runs first): Cancel is the safe default.
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);
  return (
    <>
      <button type="button" class="secondary small" data-testid={`model-remove-${model.id}`} onClick={() => setAsking(true)}>
        {t("models.remove")}
      </button>
      {asking && (
        <Dialog title={t("models.removeAsk", { size: megabytes(model.size) })} testId="model-remove-dialog" onClose={() => setAsking(false)}>
          <p>{t("models.removeWhat", { name: model.name })}</p>
          <div class="card-actions">
            <button type="button" class="secondary" data-testid="model-remove-cancel" ref={cancel} onClick={() => setAsking(false)}>
              {t("models.cancel")}
            </button>
            <button
              type="button"
              class="danger"
              data-testid="model-remove-confirm"
              onClick={() => {
                setAsking(false);
                installs.remove(model.id);
              }}
            >
              {t("models.remove")}
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}

function Hash({ sha256 }: { sha256: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span class="model-hash">
      SHA-256{" "}
      <code title={sha256} data-testid="model-sha256">
        {shortHash(sha256)}
      </code>{" "}
      <button
        type="button"
        class="icon small"
        title={t("models.copyHash")}
        onClick={() => void navigator.clipboard?.writeText(sha256).then(() => setCopied(true), () => {})}
      >
        {copied ? t("models.copied") : t("models.copy")}
      </button>
    </span>
  );
}

export interface ModelManagerProps {
  models: EmbeddedModel[];
  installs: ModelInstalls;
  /** Where the files go. */
  modelsDir: string;
}

export function ModelManager({ models, installs, modelsDir }: ModelManagerProps) {
  return (
    <section class="model-manager" data-testid="models-section" aria-labelledby="models-heading">
      <h2 id="models-heading">{t("models.title")}</h2>
      <p class="muted small">
        {t("models.intro")} <code>{modelsDir}</code>
      </p>
      <ul class="model-list">
        {models.map((model) => (
          <li key={model.id} class="model-entry" data-testid={`model-${model.id}`}>
            <div class="model-head">
              <span class="model-name">
                {model.name}
                {model.default ? t("models.default") : ""}
              </span>
              <span class="muted small">{megabytes(model.size)}</span>
              <InstallButton model={model} installs={installs} />
            </div>
            <Hash sha256={model.sha256} />
            <InstallStatus model={model} state={installs.states[model.id]} />
          </li>
        ))}
      </ul>
    </section>
  );
}
