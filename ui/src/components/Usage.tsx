// What the chat costs (DESIGN §15): in the chat's header its tokens and cost, planning and
// execution apart (cost only where the provider's prices are set; otherwise a hint that leads
// to Settings); in the message box how full the model's context was at the last call, with a
// thin bar and a warning in words past 80 %; on the completion card the chat's totals.
import type { ChatUsage } from "../generated/ChatUsage";
import type { ContextMeter } from "../generated/ContextMeter";
import { t } from "../lib/i18n";
import { CONTEXT_WARNING, chatTotals, contextState, formatCost, formatTokens, phaseSummaries, unpricedCalls } from "../lib/usage";

/** "Planning 1.2k tok · $0.004 · Execution 8.2k tok · $0.018"; nothing before the first call. */
export function UsageLine({ usage, onOpenSettings }: { usage: ChatUsage; onOpenSettings: () => void }) {
  const phases = phaseSummaries(usage);
  if (phases.length === 0) return null;
  const unpriced = unpricedCalls(usage);
  return (
    <p class="usage-line small" data-testid="usage-line">
      {phases.map((phase, index) => (
        <span class="usage-phase" key={phase.label} title={phase.detail} data-testid="usage-phase">
          {index > 0 && <span class="usage-sep" aria-hidden="true"> · </span>}
          <span class="usage-label">{phase.label}</span> <span data-testid="usage-tokens">{phase.tokens}</span>
          {phase.cost !== null && (
            <>
              <span class="usage-sep" aria-hidden="true"> · </span>
              <span data-testid="usage-cost">{phase.cost}</span>
            </>
          )}
        </span>
      ))}
      {unpriced > 0 && (
        <>
          {" "}
          <button type="button" class="link small" data-testid="prices-not-set" title={t("usage.unpricedHint", { count: unpriced })} onClick={onOpenSettings}>
            {t("usage.pricesNotSet")}
          </button>
        </>
      )}
    </p>
  );
}

/** "5.1k / 32.8k" with a thin bar (the warning's colour past 80 %, the danger's past 95 %);
 *  past 80 % it says so in words. */
export function ContextMeterView({ meter }: { meter: ContextMeter }) {
  const state = contextState(meter);
  const label = t("usage.contextLabel", { used: formatTokens(meter.used), window: formatTokens(meter.window) });
  return (
    <div class={`context-meter small${state.warning ? " warn" : ""}`} data-testid="context-meter" data-fraction={state.fraction.toFixed(3)}>
      <meter min={0} max={Math.max(meter.window, 1)} value={Math.min(meter.used, meter.window)} low={meter.window * CONTEXT_WARNING} high={meter.window * 0.95} optimum={0} aria-label={label} />
      <span class="context-text" data-testid="context-text" title={label}>
        {state.text}
      </span>
      {state.warning && (
        <span class="context-warning" data-testid="context-warning" role="status">
          {state.warning}
        </span>
      )}
    </div>
  );
}

/** The completion card's line: "This chat: 9.4k tokens in 6 calls · $0.022". */
export function UsageTotals({ usage }: { usage: ChatUsage }) {
  const totals = chatTotals(usage);
  if (totals.calls === 0) return null;
  const tokens = t("usage.totals", { tokens: formatTokens(totals.tokens), calls: t("usage.calls", { count: totals.calls }) });
  return (
    <p class="small muted usage-totals" data-testid="usage-totals">
      {totals.cost === null ? tokens : t("usage.totalsCost", { tokens, cost: formatCost(totals.cost) })}
    </p>
  );
}
