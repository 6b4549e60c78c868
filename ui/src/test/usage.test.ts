// What a chat costs, as the window writes it (issue 50): tokens short and in the language's
// digits, dollars as the language writes them, each phase apart, the totals, and the context
// meter's warning past 80 % of the window.
import { afterEach, describe, expect, it } from "vitest";

import type { ChatUsage } from "../generated/ChatUsage";
import type { PhaseUsage } from "../generated/PhaseUsage";
import { applyLanguage } from "../lib/i18n";
import { chatTotals, contextState, formatCost, formatTokens, phaseSummaries, unpricedCalls } from "../lib/usage";

const phase = (input: number, output: number, extra: Partial<PhaseUsage> = {}): PhaseUsage => ({
  calls: 1,
  input_tokens: input,
  output_tokens: output,
  cached_input_tokens: 0,
  unpriced_calls: 0,
  ...extra,
});
const NONE = phase(0, 0, { calls: 0 });
const usage = (planning: PhaseUsage, execution: PhaseUsage, used = 0, window = 32768): ChatUsage => ({ planning, execution, context: { used, window } });

afterEach(() => applyLanguage("en"));

describe("tokens, short", () => {
  it.each([
    [0, "0", "0"],
    [950, "950", "950"],
    [1000, "1k", "1 тыс."],
    [5120, "5.1k", "5,1 тыс."],
    [32768, "32.8k", "32,8 тыс."],
    [99_949, "99.9k", "99,9 тыс."],
    [128_000, "128k", "128 тыс."],
    [999_499, "999k", "999 тыс."],
    [999_500, "1M", "1 млн"],
    [1_250_000, "1.3M", "1,3 млн"],
  ])("%d → %s (ru %s)", (tokens, en, ru) => {
    expect(formatTokens(tokens)).toBe(en);
    applyLanguage("ru");
    expect(formatTokens(tokens)).toBe(ru);
  });
});

describe("dollars", () => {
  // Russian writes the sign after the number, with a no-break space.
  it.each([
    [0, "$0", "0 $"],
    [0.00042, "$0.00042", "0,00042 $"],
    [0.004, "$0.004", "0,004 $"],
    [0.0183, "$0.018", "0,018 $"],
    [0.072, "$0.072", "0,072 $"],
    [1.234, "$1.23", "1,23 $"],
    [1234.5, "$1,234.50", "1 234,50 $"],
  ])("%d → %s (ru %s)", (usd, en, ru) => {
    expect(formatCost(usd)).toBe(en);
    applyLanguage("ru");
    expect(formatCost(usd).replace(/\s/g, " ")).toBe(ru);
  });
});

describe("the phases", () => {
  it("says planning and execution apart, each with its cost when it has one", () => {
    const phases = phaseSummaries(usage(phase(1000, 200, { calls: 2, cost: 0.004 }), phase(8000, 200, { calls: 5, cost: 0.018, cached_input_tokens: 3000 })));
    expect(phases.map(({ label, tokens, cost }) => [label, tokens, cost])).toEqual([
      ["Planning", "1.2k tok", "$0.004"],
      ["Execution", "8.2k tok", "$0.018"],
    ]);
    expect(phases[1]!.detail).toBe("Execution: 5 calls · 8k in (3k cached) · 200 out");
    expect(phases[0]!.detail).toBe("Planning: 2 calls · 1k in · 200 out");
  });

  it("leaves out a phase that made no call, and a cost without prices", () => {
    const phases = phaseSummaries(usage(NONE, phase(5100, 40, { unpriced_calls: 1 })));
    expect(phases.map(({ label, cost }) => [label, cost])).toEqual([["Execution", null]]);
    expect(phaseSummaries(usage(NONE, NONE))).toEqual([]);
  });

  it("counts the calls made without prices", () => {
    expect(unpricedCalls(usage(phase(1, 1, { unpriced_calls: 2 }), phase(1, 1, { unpriced_calls: 1, cost: 0.01 })))).toBe(3);
  });

  it("sums the chat's totals; the cost is the priced calls' only, and none without prices", () => {
    expect(chatTotals(usage(phase(1000, 200, { cost: 0.004 }), phase(8000, 200, { calls: 5 })))).toEqual({ calls: 6, tokens: 9400, cost: 0.004 });
    expect(chatTotals(usage(phase(1000, 200), NONE)).cost).toBeNull();
  });
});

describe("the context meter", () => {
  it.each([
    [0, 32768, "0 / 32.8k", null],
    [5140, 8192, "5.1k / 8.2k", null],
    [26214, 32768, "26.2k / 32.8k", null],
    [26300, 32768, "26.3k / 32.8k", "Context 80% full: older rounds will be summarised soon."],
    [28200, 32768, "28.2k / 32.8k", "Context 86% full: older rounds will be summarised soon."],
    [40000, 32768, "40k / 32.8k", "Context 122% full: older rounds will be summarised soon."],
  ])("%d of %d: %s, warning %s", (used, window, text, warning) => {
    const state = contextState({ used, window });
    expect(state.text).toBe(text);
    expect(state.warning).toBe(warning);
  });

  it("warns in Russian too", () => {
    applyLanguage("ru");
    expect(contextState({ used: 28200, window: 32768 }).warning).toBe("Контекст заполнен на 86 %: скоро старые раунды будут сжаты в сводку.");
  });
});
