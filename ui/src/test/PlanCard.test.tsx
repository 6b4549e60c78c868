import { fireEvent, render, screen, within } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { PlanCard, overLimit, sandboxLine } from "../components/PlanCard";
import { plan } from "./fixtures";

function setup(active = true) {
  const handlers = { onApprove: vi.fn(), onRevise: vi.fn(), onCancel: vi.fn(), onEdit: vi.fn() };
  render(<PlanCard chatId="chat-1" plan={plan()} active={active} planRunning={active} {...handlers} />);
  return handlers;
}

describe("PlanCard", () => {
  it("shows title, aim, steps as action → expected, the libraries table and the sandbox", () => {
    setup();
    expect(screen.getByText("CSV export")).toBeTruthy();
    expect(screen.getByText("Orders can be exported as CSV")).toBeTruthy();
    const steps = [...document.querySelectorAll(".plan-steps > li")].map((item) => `${item.querySelector(".step-action")?.textContent} → ${item.querySelector(".step-expected")?.textContent}`);
    expect(steps).toEqual(["Add the route → GET /export answers", "Write the test → the test passes"]);
    const table = screen.getByRole("table");
    expect(within(table).getAllByRole("columnheader").map((cell) => cell.textContent)).toEqual(["Library", "Purpose", "Usage"]);
    expect(within(table).getByText("csv::Writer::from_writer")).toBeTruthy();
    expect(screen.getByText(/Create a sandbox in \/work\/shop\/\.sandbox — sample data/)).toBeTruthy();
  });

  it("says reuse for an existing sandbox", () => {
    expect(sandboxLine(plan({ sandbox: { policy: "reuse", notes: "", dir: "/w/.sandbox", exists: true } }))).toBe(
      "Reuse the existing sandbox /w/.sandbox",
    );
  });

  it("approves, and revises only with feedback", () => {
    const { onApprove, onRevise } = setup();
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    expect(onApprove).toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Revise…" }));
    const send = screen.getByRole("button", { name: "Send feedback" });
    expect(send).toHaveProperty("disabled", true);
    fireEvent.input(screen.getByLabelText("What should change in the plan?"), { target: { value: " Use JSON instead " } });
    fireEvent.click(send);
    expect(onRevise).toHaveBeenCalledWith("Use JSON instead", []);
  });

  it("edits steps before approval: change, add, remove, save", async () => {
    const { onEdit } = setup();
    fireEvent.click(screen.getByRole("button", { name: "Edit steps" }));
    fireEvent.input(screen.getByLabelText("Step 1 action"), { target: { value: "Add the /export route" } });
    fireEvent.click(screen.getByRole("button", { name: "Remove step 2" }));
    fireEvent.click(screen.getByRole("button", { name: "Add step" }));
    fireEvent.input(screen.getByLabelText("Step 2 action"), { target: { value: "Document it" } });
    fireEvent.input(screen.getByLabelText("Step 2 expected"), { target: { value: "README has a section" } });
    fireEvent.click(screen.getByRole("button", { name: "Save steps" }));
    expect(onEdit).toHaveBeenCalledWith({
      steps: [
        { action: "Add the /export route", expected: "GET /export answers" },
        { action: "Document it", expected: "README has a section" },
      ],
    });
  });

  it("as history offers no approval and no edits", () => {
    setup(false);
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Edit steps" })).toBeNull();
    expect(screen.getByRole("button", { name: "Cancel plan" })).toHaveProperty("disabled", true);
  });
});

describe("a plan over the task list's limits", () => {
  it("says why and cannot be approved, but can be edited or revised", () => {
    const steps = Array.from({ length: 41 }, (_, i) => ({ action: `step ${i + 1}`, expected: "" }));
    render(<PlanCard chatId="chat-1" plan={plan({ steps })} active planRunning={false} onApprove={() => {}} onRevise={() => {}} onCancel={() => {}} onEdit={async () => {}} />);
    expect(screen.getByTestId("plan-over-limit").textContent).toContain("41 steps");
    expect((screen.getByTestId("approve-plan") as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId("edit-steps") as HTMLButtonElement).disabled).toBe(false);
    expect(overLimit([{ action: "x".repeat(121), expected: "" }])).toContain("Step 1");
    expect(overLimit([{ action: `${"x".repeat(60)}   \n ${"y".repeat(59)}`, expected: "" }])).toBeNull();
  });
});

describe("a plan whose code would run unconfined on this machine", () => {
  const reason = "bubblewrap is installed but cannot confine here: setting up uid map: Permission denied";

  it("says why and approves only after the explicit choice, which it passes on", () => {
    const onApprove = vi.fn();
    render(
      <PlanCard chatId="chat-1" plan={plan()} active planRunning unconfined={{ reason, needs_consent: true }} onApprove={onApprove} onRevise={() => {}} onCancel={() => {}} onEdit={async () => {}} />,
    );
    expect(screen.getByTestId("plan-unconfined").textContent).toContain("uid map");
    const approve = screen.getByTestId("approve-plan") as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    fireEvent.click(screen.getByTestId("allow-unconfined"));
    expect(approve.disabled).toBe(false);
    fireEvent.click(approve);
    expect(onApprove).toHaveBeenCalledWith(true);
  });

  it("asks nothing when the configuration chose it, and nothing on a confined machine", () => {
    const onApprove = vi.fn();
    const { unmount } = render(
      <PlanCard chatId="chat-1" plan={plan()} active planRunning unconfined={{ reason: "[sandbox] confinement = \"off\"", needs_consent: false }} onApprove={onApprove} onRevise={() => {}} onCancel={() => {}} onEdit={async () => {}} />,
    );
    expect(screen.queryByTestId("allow-unconfined")).toBeNull();
    fireEvent.click(screen.getByTestId("approve-plan"));
    expect(onApprove).toHaveBeenCalledWith(false);
    unmount();
    render(<PlanCard chatId="chat-1" plan={plan()} active planRunning unconfined={null} onApprove={onApprove} onRevise={() => {}} onCancel={() => {}} onEdit={async () => {}} />);
    expect(screen.queryByTestId("plan-unconfined")).toBeNull();
  });

  it("as history says that it was approved to run unconfined", () => {
    render(<PlanCard chatId="chat-1" plan={plan({ run_unconfined: true, approval: "approved" })} active={false} planRunning={false} onApprove={() => {}} onRevise={() => {}} onCancel={() => {}} onEdit={async () => {}} />);
    expect(screen.getByTestId("plan-ran-unconfined")).toBeTruthy();
  });
});
