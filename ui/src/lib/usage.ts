// What a chat's model calls used and cost (DESIGN §15), as the window writes it: tokens short
// ("950", "5.1k", "1.2M"), dollars as the language writes them ("$0.004", "0,004 $"), each
// phase's sums and how full the context is. Pure: the chat view's `usage` in, words out.
import type { ChatUsage } from "../generated/ChatUsage";
import type { ContextMeter } from "../generated/ContextMeter";
import type { PhaseUsage } from "../generated/PhaseUsage";
import { language, t } from "./i18n";

/** Past this share of the window the meter warns: the next requests are summarised soon. */
export const CONTEXT_WARNING = 0.8;

/** `value` with at most `digits` after the point, as the language writes it ("5.1", "5,1"). */
function decimal(value: number, digits: number): string {
  return new Intl.NumberFormat(language(), { maximumFractionDigits: digits, useGrouping: true }).format(value);
}

/** A token count, short: 950 → "950", 5120 → "5.1k", 32768 → "32.8k", 128000 → "128k", 1.25e6 → "1.3M". */
export function formatTokens(tokens: number): string {
  const n = Math.max(0, Math.round(tokens));
  if (n < 1000) return decimal(n, 0);
  if (n < 999_500) {
    const thousands = n / 1000;
    return t("usage.thousands", { value: decimal(thousands, thousands < 100 ? 1 : 0) });
  }
  const millions = n / 1_000_000;
  return t("usage.millions", { value: decimal(millions, millions < 100 ? 1 : 0) });
}

/** Dollars as the language writes them: two significant digits under $1 ("$0.0042",
 *  "$0.018"), cents above ("$1.23", "$1,234.50"). */
export function formatCost(usd: number): string {
  const options: Intl.NumberFormatOptions = { style: "currency", currency: "USD", currencyDisplay: "narrowSymbol" };
  if (usd > 0 && usd < 1) Object.assign(options, { maximumSignificantDigits: 2 });
  else Object.assign(options, { minimumFractionDigits: usd === 0 ? 0 : 2, maximumFractionDigits: 2 });
  return new Intl.NumberFormat(language(), options).format(usd);
}

/** The tokens a phase's calls sent and got back (cached input is part of the input). */
export function phaseTokens(phase: PhaseUsage): number {
  return phase.input_tokens + phase.output_tokens;
}

export interface PhaseSummary {
  /** "Planning" or "Execution". */
  label: string;
  /** "1.2k tok" */
  tokens: string;
  /** "$0.004", or null when no call of the phase had prices. */
  cost: string | null;
  /** Every figure of the phase, for a tooltip. */
  detail: string;
}

function summary(label: string, phase: PhaseUsage): PhaseSummary {
  const cached = phase.cached_input_tokens > 0 ? t("usage.cached", { value: formatTokens(phase.cached_input_tokens) }) : "";
  return {
    label,
    tokens: t("usage.tokens", { value: formatTokens(phaseTokens(phase)) }),
    cost: phase.cost === undefined ? null : formatCost(phase.cost),
    detail: t("usage.detail", {
      label,
      calls: t("usage.calls", { count: phase.calls }),
      input: formatTokens(phase.input_tokens),
      cached,
      output: formatTokens(phase.output_tokens),
    }),
  };
}

/** The phases that made calls, planning first; empty before the chat's first call. */
export function phaseSummaries(usage: ChatUsage): PhaseSummary[] {
  const phases: [string, PhaseUsage][] = [
    [t("usage.planning"), usage.planning],
    [t("usage.execution"), usage.execution],
  ];
  return phases.filter(([, phase]) => phase.calls > 0).map(([label, phase]) => summary(label, phase));
}

/** How many calls were made without prices (not in any cost). */
export function unpricedCalls(usage: ChatUsage): number {
  return usage.planning.unpriced_calls + usage.execution.unpriced_calls;
}

export interface ChatTotals {
  calls: number;
  tokens: number;
  /** USD over the priced calls; null when none had prices. */
  cost: number | null;
}

/** The whole chat's sums (the completion card's line). */
export function chatTotals(usage: ChatUsage): ChatTotals {
  const { planning, execution } = usage;
  const priced = [planning.cost, execution.cost].filter((cost): cost is number => cost !== undefined);
  return {
    calls: planning.calls + execution.calls,
    tokens: phaseTokens(planning) + phaseTokens(execution),
    cost: priced.length === 0 ? null : priced.reduce((sum, cost) => sum + cost, 0),
  };
}

export interface ContextState {
  /** "5.1k / 32.8k" */
  text: string;
  /** 0…1 (more when the last call overflowed a smaller window chosen since). */
  fraction: number;
  /** Past CONTEXT_WARNING: the words of the warning; null below it. */
  warning: string | null;
}

/** How full the context was at the chat's last call, and whether to warn. */
export function contextState(meter: ContextMeter): ContextState {
  const fraction = meter.window > 0 ? meter.used / meter.window : 0;
  const percent = Math.round(fraction * 100);
  return {
    text: t("usage.context", { used: formatTokens(meter.used), window: formatTokens(meter.window) }),
    fraction,
    warning: fraction > CONTEXT_WARNING ? t("usage.contextWarning", { percent }) : null,
  };
}
