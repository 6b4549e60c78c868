// What the chat costs, on screen (issue 50): the header's line (planning and execution apart,
// cost only where prices are set, a way to Settings where they are not), the meter under the
// message box and its warning, and the completion card's totals.
import { fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { CompletionCard } from "../components/CompletionCard";
import { ContextMeterView, UsageLine, UsageTotals } from "../components/Usage";
import type { ChatUsage } from "../generated/ChatUsage";
import type { Completion } from "../generated/Completion";
import { noUsage } from "./fixtures";

const priced: ChatUsage = {
  planning: { calls: 2, input_tokens: 1000, output_tokens: 200, cached_input_tokens: 0, cost: 0.004, unpriced_calls: 0 },
  execution: { calls: 5, input_tokens: 8000, output_tokens: 200, cached_input_tokens: 0, cost: 0.018, unpriced_calls: 0 },
  context: { used: 5100, window: 32768 },
};

describe("the header's usage", () => {
  it("says planning and execution apart with their costs", () => {
    render(<UsageLine usage={priced} onOpenSettings={vi.fn()} />);
    expect(screen.getByTestId("usage-line").textContent).toBe("Planning 1.2k tok · $0.004 · Execution 8.2k tok · $0.018");
    expect(screen.getAllByTestId("usage-phase")[1]!.getAttribute("title")).toBe("Execution: 5 calls · 8k in · 200 out");
    expect(screen.queryByTestId("prices-not-set")).toBeNull();
  });

  it("says nothing before the first call", () => {
    render(<UsageLine usage={noUsage} onOpenSettings={vi.fn()} />);
    expect(screen.queryByTestId("usage-line")).toBeNull();
  });

  it("leads to Settings when calls were made without prices", () => {
    const onOpenSettings = vi.fn();
    const unpriced: ChatUsage = { ...noUsage, execution: { calls: 1, input_tokens: 5100, output_tokens: 40, cached_input_tokens: 0, unpriced_calls: 1 } };
    render(<UsageLine usage={unpriced} onOpenSettings={onOpenSettings} />);
    expect(screen.getByTestId("usage-line").textContent).toBe("Execution 5.1k tok prices not set");
    const hint = screen.getByTestId("prices-not-set");
    expect(hint.getAttribute("title")).toContain("1 call was made without prices");
    fireEvent.click(hint);
    expect(onOpenSettings).toHaveBeenCalled();
  });
});

describe("the context meter", () => {
  it("shows what the last call took of the window, quietly below 80 %", () => {
    render(<ContextMeterView meter={{ used: 5140, window: 8192 }} />);
    expect(screen.getByTestId("context-text").textContent).toBe("5.1k / 8.2k");
    const meter = screen.getByTestId("context-meter").querySelector("meter")!;
    expect([meter.value, meter.max]).toEqual([5140, 8192]);
    expect(meter.getAttribute("aria-label")).toBe("Context: 5.1k of 8.2k tokens used at the last call");
    expect(screen.queryByTestId("context-warning")).toBeNull();
    expect(screen.getByTestId("context-meter").classList.contains("warn")).toBe(false);
  });

  it("warns in words past 80 %", () => {
    render(<ContextMeterView meter={{ used: 28200, window: 32768 }} />);
    expect(screen.getByTestId("context-warning").textContent).toBe("Context 86% full: older rounds will be summarised soon.");
    expect(screen.getByTestId("context-meter").classList.contains("warn")).toBe(true);
  });
});

describe("the completion card's totals", () => {
  it("are on the card", () => {
    const completion: Completion = {
      summary: "",
      deviations: [],
      adherence: { steps: 1, done_as_planned: 1, modified: 0, dropped: 0, added: 0, in_order: true },
      planned: [{ id: 1, title: "Fix the parser" }],
      tasks: [{ id: 1, title: "Fix the parser", status: "done", origin: "plan" }],
      stops_and_continues: [],
      finished_at: "2026-11-30T10:09:00.000Z",
    };
    render(<CompletionCard completion={completion} usage={priced} />);
    expect(screen.getByTestId("completion-card").querySelector('[data-testid="usage-totals"]')?.textContent).toBe("This chat: 9.4k tokens in 7 calls · $0.022");
  });

  it("sums the chat's tokens, calls and cost", () => {
    render(<UsageTotals usage={priced} />);
    expect(screen.getByTestId("usage-totals").textContent).toBe("This chat: 9.4k tokens in 7 calls · $0.022");
  });

  it("leaves the cost out without prices, and says nothing before a call", () => {
    const { unmount } = render(<UsageTotals usage={{ ...priced, planning: { ...priced.planning, cost: undefined }, execution: { ...priced.execution, cost: undefined } }} />);
    expect(screen.getByTestId("usage-totals").textContent).toBe("This chat: 9.4k tokens in 7 calls");
    unmount();
    render(<UsageTotals usage={noUsage} />);
    expect(screen.queryByTestId("usage-totals")).toBeNull();
  });
});
