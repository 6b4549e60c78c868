// The plan a user can judge (DESIGN §14): approach, complexity, each step's check and
// dependencies, risks and files folded, Preflight's notes; all of it rendered as text, and
// a plan without these fields looks as it did.
import { fireEvent, render, screen, within } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import type { PlanDocument } from "../generated/PlanDocument";
import { PlanCard } from "../components/PlanCard";
import { plan } from "./fixtures";

const HOSTILE = `<img src=x onerror="alert(1)"> **bold** [link](javascript:alert(1))`;

function judged(overrides: Partial<PlanDocument> = {}): PlanDocument {
  return plan({
    approach: "Stream rows through the csv crate",
    complexity: "medium",
    risks: ["Large tables are slow", "Names with commas need quoting"],
    planned_files: { create: ["tests/export.rs"], modify: ["src/routes.rs", "Cargo.toml"] },
    alternatives: ["Build the file in memory"],
    tests: ["export answers 200"],
    steps: [
      { action: "Add the csv dependency", expected: "it builds", files: ["Cargo.toml"], check: "cargo build" },
      { action: "Add the route", expected: "GET /export answers", depends_on: [1], check: "cargo test export" },
      { action: "Write the test", expected: "the test passes", depends_on: [1, 2] },
    ],
    notes: ["step 3: depends_on 5 dropped: no earlier step 5"],
    ...overrides,
  });
}

function show(document: PlanDocument, onEdit = vi.fn()) {
  render(<PlanCard chatId="chat-1" plan={document} active planRunning onApprove={() => {}} onRevise={() => {}} onCancel={() => {}} onEdit={onEdit} />);
  return onEdit;
}

describe("a plan the user can judge", () => {
  it("shows the approach under the aim and the complexity as a chip", () => {
    show(judged());
    expect(screen.getByTestId("plan-approach").textContent).toBe("Approach: Stream rows through the csv crate");
    expect(screen.getByTestId("plan-complexity").textContent).toBe("Medium complexity");
  });

  it("shows each step's check as code under the step, and its dependencies", () => {
    show(judged());
    const check = screen.getByTestId("step-check-1");
    expect(check.textContent).toBe("Check: cargo build");
    expect(check.querySelector("code")?.textContent).toBe("cargo build");
    expect(screen.getByTestId("step-check-2").textContent).toBe("Check: cargo test export");
    expect(screen.queryByTestId("step-check-3")).toBeNull();
    expect(screen.queryByTestId("step-depends-1")).toBeNull();
    expect(screen.getByTestId("step-depends-2").textContent).toBe("after 1");
    expect(screen.getByTestId("step-depends-3").textContent).toBe("after 1, 2");
  });

  it("folds risks and files (create and modify) under summaries with their counts", () => {
    show(judged());
    const risks = screen.getByTestId("plan-risks");
    expect(risks.tagName).toBe("DETAILS");
    expect(risks.hasAttribute("open")).toBe(false);
    expect(risks.querySelector("summary")?.textContent).toBe("Risks (2)");
    expect(within(risks).getAllByRole("listitem").map((item) => item.textContent)).toEqual(["Large tables are slow", "Names with commas need quoting"]);
    const files = screen.getByTestId("plan-files");
    expect(files.querySelector("summary")?.textContent).toBe("Files (3)");
    const lists = [...files.querySelectorAll(".path-list")].map((list) => [list.querySelector("span")?.textContent, [...list.querySelectorAll("code")].map((code) => code.textContent)]);
    expect(lists).toEqual([
      ["Create", ["tests/export.rs"]],
      ["Modify", ["src/routes.rs", "Cargo.toml"]],
    ]);
    expect(screen.getByTestId("plan-alternatives").querySelector("summary")?.textContent).toBe("Alternatives considered (1)");
    expect(screen.getByTestId("plan-tests").querySelector("summary")?.textContent).toBe("Tests (1)");
  });

  it("shows Preflight's notes small and muted", () => {
    show(judged());
    const notes = screen.getByTestId("plan-notes");
    expect(notes.classList.contains("small") && notes.classList.contains("muted")).toBe(true);
    expect(notes.textContent).toBe("step 3: depends_on 5 dropped: no earlier step 5");
  });

  it("renders what the planner wrote as text, never as markup", () => {
    const { container } = render(
      <PlanCard chatId="chat-1"
        plan={judged({
          approach: HOSTILE,
          risks: [HOSTILE],
          planned_files: { create: [HOSTILE] },
          steps: [{ action: "Do it", expected: "done", check: HOSTILE }],
          notes: [HOSTILE],
        })}
        active
        planRunning
        onApprove={() => {}}
        onRevise={() => {}}
        onCancel={() => {}}
        onEdit={() => {}}
      />,
    );
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("a")).toBeNull();
    expect([...container.querySelectorAll("strong")].some((strong) => strong.textContent === "bold")).toBe(false);
    for (const testid of ["plan-approach", "plan-risks", "plan-files", "step-check-1", "plan-notes"]) {
      expect(screen.getByTestId(testid).textContent).toContain(HOSTILE);
    }
  });

  it("shows none of it for a plan without these fields", () => {
    show(plan());
    for (const testid of ["plan-approach", "plan-complexity", "plan-risks", "plan-files", "plan-notes", "step-check-1", "step-depends-2"]) {
      expect(screen.queryByTestId(testid), testid).toBeNull();
    }
  });

  it("keeps checks and files when steps are edited, and dependencies follow their steps", () => {
    const onEdit = show(judged());
    fireEvent.click(screen.getByRole("button", { name: "Edit steps" }));
    fireEvent.click(screen.getByRole("button", { name: "Remove step 1" }));
    fireEvent.click(screen.getByRole("button", { name: "Save steps" }));
    expect(onEdit).toHaveBeenCalledWith({
      steps: [
        { action: "Add the route", expected: "GET /export answers", check: "cargo test export" },
        { action: "Write the test", expected: "the test passes", depends_on: [1] },
      ],
    });
  });
});
