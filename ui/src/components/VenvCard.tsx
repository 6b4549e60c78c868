// The workspace's `.sandbox/venv` that the sandbox does not use (DESIGN §11), said where the
// sandbox is shown: one an earlier Preflight made (ERR_VENV_ADOPTABLE) gets "Use this
// environment", which adopts it at the user's word, beside the advice to move or delete it;
// one that came with the workspace (ERR_VENV_FOREIGN) gets why it is not used and that advice.
// The engine's own words stay as a dimmed detail.
import { useState } from "preact/hooks";

import type { ApiError } from "../generated/ApiError";
import type { SandboxView } from "../generated/SandboxView";
import { asApiError } from "../lib/api";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";
import { useAction } from "../lib/useAction";

export interface VenvCardProps {
  view: SandboxView;
  /** Adopts the venv; resolves with the sandbox as it stands afterwards. */
  adopt?: () => Promise<SandboxView>;
  /** The sandbox after an adoption (the card then says it is in use). */
  onAdopted?: (view: SandboxView) => void;
}

/** The venv's folder as `sandbox_info` names it, or the usual place. */
export function venvPath(view: SandboxView): string {
  const info = view.info as { venv?: { path?: unknown } } | null;
  const path = info?.venv?.path;
  return typeof path === "string" ? path : ".sandbox/venv";
}

export function VenvCard({ view, adopt, onAdopted }: VenvCardProps) {
  const [adopted, setAdopted] = useState(false);
  const { sending, error, run } = useAction(async () => {
    if (!adopt) return null;
    try {
      const after = await adopt();
      setAdopted(true);
      onAdopted?.(after);
      return null;
    } catch (failure) {
      return describeError(asApiError(failure));
    }
  });
  const refusal: ApiError | null = view.venv_refusal;
  if (adopted) {
    return (
      <section class="card venv-card ok" data-testid="venv-card" data-state="adopted" aria-label={t("venv.label")}>
        <p>{t("venv.adopted")}</p>
      </section>
    );
  }
  if (refusal === null) return null;
  const adoptable = refusal.code === "ERR_VENV_ADOPTABLE";
  return (
    <section class="card venv-card warn" data-testid="venv-card" data-state={adoptable ? "adoptable" : "foreign"} aria-label={t("venv.label")}>
      <h3 class="card-title">{adoptable ? t("venv.adoptableTitle") : t("venv.foreignTitle")}</h3>
      <p>
        <code>{venvPath(view)}</code>
      </p>
      <p>{adoptable ? t("venv.adoptableWhy") : t("venv.foreignWhy")}</p>
      <div class="card-actions">
        {adoptable && adopt && (
          <button type="button" class="primary" data-testid="venv-adopt" disabled={sending} aria-busy={sending} onClick={() => void run()}>
            {t("venv.adopt")}
          </button>
        )}
        <span class="small" data-testid="venv-advice">
          {adoptable ? t("venv.orMove") : t("venv.move")}
        </span>
      </div>
      <p class="small muted" data-testid="venv-detail">
        {refusal.message}
      </p>
      {error && (
        <p class="error small" role="alert" data-testid="venv-error">
          {error}
        </p>
      )}
    </section>
  );
}
