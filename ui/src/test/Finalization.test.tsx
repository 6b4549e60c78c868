// The completion card's plan-folder verdict (seed 002's finaliser): VERIFIED, or UNVERIFIED
// with each reason as plain text (model and workspace text stays inert), and the link that
// opens the folder holding FINALIZATION.json.
import { fireEvent, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";

import { CompletionCard } from "../components/CompletionCard";
import type { Completion } from "../generated/Completion";
import type { FinalizationNote } from "../generated/FinalizationNote";
import { applyLanguage } from "../lib/i18n";

const XSS = '<img src=x onerror="window.__pwned=1">';

function completion(finalization?: FinalizationNote): Completion {
  return {
    summary: "",
    deviations: [],
    adherence: { steps: 2, done_as_planned: 2, modified: 0, dropped: 0, added: 0, in_order: true },
    planned: [
      { id: 1, title: "Write the parser" },
      { id: 2, title: "Test it" },
    ],
    tasks: [
      { id: 1, title: "Write the parser", status: "done", origin: "plan" },
      { id: 2, title: "Test it", status: "done", origin: "plan" },
    ],
    stops_and_continues: [],
    finished_at: "2026-12-04T10:09:00.000Z",
    finalization,
  };
}

const file = ".dwp/plans/PLAN_parser/FINALIZATION.json";
const path = `/home/u/project/${file}`;

describe("the completion card's plan-folder verdict", () => {
  afterEach(() => applyLanguage("en"));

  it("shows VERIFIED with the number of checks run again, and opens the folder", () => {
    const open = vi.fn();
    render(<CompletionCard completion={completion({ verdict: "VERIFIED", reasons: [], file, path, gates_rerun: 2, dropped_without_user: 0, planned: 2 })} onOpenFolder={open} />);
    const verdict = screen.getByTestId("finalization");
    expect(verdict.dataset.verdict).toBe("VERIFIED");
    expect(verdict.textContent).toContain("Plan folder verified");
    expect(verdict.textContent).toContain("(2 checks run again)");
    expect(screen.queryByTestId("finalization-reasons")).toBeNull();
    const link = screen.getByTestId("open-finalization");
    expect(link.textContent).toBe(file);
    expect(link.getAttribute("title")).toBe(path);
    fireEvent.click(link);
    expect(open).toHaveBeenCalledTimes(1);
  });

  it("shows UNVERIFIED with every reason as text", () => {
    const reasons = ["task 2: gate `cargo test` fails when run again (exit code 101)", XSS];
    render(<CompletionCard completion={completion({ verdict: "UNVERIFIED", reasons, file, path, gates_rerun: 1, dropped_without_user: 0, planned: 2 })} />);
    expect(screen.getByTestId("finalization").dataset.verdict).toBe("UNVERIFIED");
    const items = [...screen.getByTestId("finalization-reasons").querySelectorAll("li")].map((li) => li.textContent);
    expect(items).toEqual(reasons);
    expect(document.querySelector("img")).toBeNull();
    // Without a way to open the folder, the file is named, not a dead button.
    expect(screen.queryByTestId("open-finalization")).toBeNull();
    expect(screen.getByTestId("finalization").textContent).toContain(file);
  });

  it("says nothing of a verdict in a chat without plan files", () => {
    render(<CompletionCard completion={completion()} />);
    expect(screen.queryByTestId("finalization")).toBeNull();
  });

  it("in Russian", () => {
    applyLanguage("ru");
    render(<CompletionCard completion={completion({ verdict: "VERIFIED", reasons: [], file, path, gates_rerun: 3, dropped_without_user: 0, planned: 2 })} />);
    expect(screen.getByTestId("finalization").textContent).toContain("Папка плана проверена");
    expect(screen.getByTestId("finalization").textContent).toContain("(повторно выполнены 3 проверки)");
  });
});
