import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { RevisionDiff } from "../components/RevisionDiff";
import { diffPlans, wordDiff } from "../lib/planDiff";
import { plan } from "./fixtures";

const first = plan({
  revision: 1,
  steps: [
    { action: "Add the route", expected: "GET /export answers" },
    { action: "Write the test", expected: "the test passes" },
    { action: "Tag a release", expected: "v1 is out" },
  ],
});
const second = plan({
  revision: 2,
  author: "user",
  title: "CSV export of orders",
  steps: [
    { action: "Add the /export route", expected: "GET /export answers" },
    { action: "Write the test", expected: "the test passes" },
    { action: "Document it", expected: "the README says how" },
  ],
  libraries: [{ name: "axum", purpose: "serve", usage: "Router" }],
});

describe("the difference between two plan revisions", () => {
  it("is word by word", () => {
    expect(wordDiff("Add the route", "Add the /export route")).toEqual([
      { kind: "same", text: "Add the " },
      { kind: "added", text: "/export " },
      { kind: "same", text: "route" },
    ]);
  });

  it("names steps changed, kept, removed and added, and the title and libraries", () => {
    const diff = diffPlans(first, second);
    expect(diff.steps.map((step) => step.kind)).toEqual(["changed", "same", "changed"]);
    expect(diff.title?.some((piece) => piece.kind === "added" && piece.text.includes("of"))).toBe(true);
    expect(diff.librariesAdded).toEqual(["axum"]);
    expect(diff.librariesRemoved).toEqual(["csv"]);
    const added = diffPlans(plan({ steps: [{ action: "a", expected: "" }] }), plan({ steps: [{ action: "a", expected: "" }, { action: "b", expected: "" }] }));
    expect(added.steps.map((step) => step.kind)).toEqual(["same", "added"]);
  });

  it("is shown on the card against an earlier revision, with who made each", async () => {
    render(<RevisionDiff current={second} load={async () => [first, second]} />);
    fireEvent.click(screen.getByTestId("compare-revisions"));
    await waitFor(() => screen.getByTestId("revision-diff"));
    expect(screen.getByTestId("revision-diff").textContent).toContain("Compare revision 2 (your edit) with");
    expect(screen.getByTestId("compare-with").textContent).toContain("revision 1 — the planner");
    expect(screen.getByTestId("revision-diff").querySelector("ins")?.textContent).toContain("of");
    expect(screen.getByTestId("revision-diff").querySelectorAll('[data-kind="changed"]')).toHaveLength(2);
  });

  it("is not offered on a first revision", () => {
    const { container } = render(<RevisionDiff current={first} load={async () => [first]} />);
    expect(container.textContent).toBe("");
  });
});
