// Settings → model provider, checked where it is typed (issue 48): the base URL and the model
// are checked as fields (a message under the field, the field marked), and "Test connection"
// asks the provider the form describes — not yet saved — for its models: known in seconds,
// the models offered for the Model field, a refused key or a server that is down said under
// the field it concerns.
import { useState } from "preact/hooks";

import type { ApiError } from "../generated/ApiError";
import type { ProviderCheck } from "../generated/ProviderCheck";
import type { SettingsUpdate } from "../generated/SettingsUpdate";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";

export type FieldName = "base_url" | "model" | "api_key";

/** The form's own problems, by field, before anything is sent. */
export function fieldProblems(form: SettingsUpdate): Partial<Record<FieldName, string>> {
  if (form.provider === "embedded") return {};
  const problems: Partial<Record<FieldName, string>> = {};
  const url = form.base_url.trim();
  if (url !== "" && !/^https?:\/\/[^\s/]+/i.test(url)) problems.base_url = t("settings.check.badUrl");
  if (form.model.trim() === "") problems.model = t("settings.check.noModel");
  return problems;
}

/** Which field a failed test points at. */
export function fieldOf(error: ApiError): FieldName {
  switch (error.code) {
    case "ERR_PROVIDER_UNAUTHORIZED":
      return "api_key";
    default:
      return "base_url";
  }
}

export type TestState = { kind: "idle" } | { kind: "testing" } | { kind: "ok"; check: ProviderCheck; model: string } | { kind: "failed"; error: ApiError };

export function ProviderTest({ state, onTest }: { state: TestState; onTest: () => void }) {
  return (
    <div class="provider-test" aria-live="polite">
      <button type="button" class="secondary" data-testid="test-connection" disabled={state.kind === "testing"} aria-busy={state.kind === "testing"} onClick={onTest}>
        {state.kind === "testing" ? t("settings.check.testing") : t("settings.check.test")}
      </button>
      {state.kind === "ok" && (
        <p class="small" data-testid="connection-ok">
          {t("settings.check.connected", { count: state.check.models.length })}{" "}
          {state.model.trim() !== "" && !state.check.model_served && state.check.models.length > 0 && (
            <span class="warn" data-testid="model-not-served">
              {t("settings.check.notServed", { model: state.model.trim() })}
            </span>
          )}
        </p>
      )}
      {state.kind === "failed" && (
        <p class="error small" role="alert" data-testid="connection-failed">
          {describeError(state.error)}
        </p>
      )}
    </div>
  );
}

/** The test's state and its runner, for the settings form. */
export function useProviderTest(check: (form: SettingsUpdate) => Promise<ProviderCheck>, asApiError: (error: unknown) => ApiError) {
  const [state, setState] = useState<TestState>({ kind: "idle" });
  const run = async (form: SettingsUpdate) => {
    setState({ kind: "testing" });
    try {
      setState({ kind: "ok", check: await check(form), model: form.model });
    } catch (error) {
      setState({ kind: "failed", error: asApiError(error) });
    }
  };
  return { state, run, reset: () => setState({ kind: "idle" }) };
}
