// Preflight's own notices in the chat (issue 48, never silent): a planner that failed, a
// provider that refused, a fallback — in the window's language, with the action that fits,
// the engine's words folded; and, after a restore that left tasks open, the way on.
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";

import { NoticeCard, type NoticeCardProps } from "../components/NoticeCard";
import { RestoreContinue } from "../components/RestoreEntry";
import type { Notice } from "../generated/Notice";
import { applyLanguage } from "../lib/i18n";
import { assistant } from "./fixtures";

function noticeMessage(notice: Notice): NoticeCardProps["message"] {
  return assistant("n1", "The planner could not make a plan: HTTP 500 …", { notice }) as NoticeCardProps["message"];
}

function show(notice: Notice, actionable = true) {
  const onRetry = vi.fn(async () => null as string | null);
  const onOpenSettings = vi.fn();
  render(<NoticeCard message={noticeMessage(notice)} actionable={actionable} onRetry={onRetry} onOpenSettings={onOpenSettings} />);
  return { onRetry, onOpenSettings };
}

const failed = (went_on: boolean): Notice => ({ kind: "planner_failed", went_on, code: "ERR_PROVIDER_REJECTED", detail: "the provider rejected the request (HTTP 500): boom" });

describe("the notice card", () => {
  afterEach(() => applyLanguage("en"));

  it("says the planner failed and that work went on without a plan, with Plan again and Settings", async () => {
    const { onRetry, onOpenSettings } = show(failed(true));
    expect(screen.getByRole("heading").textContent).toContain("The planner could not make a plan");
    expect(screen.getByTestId("notice-body").textContent).toContain("went ahead without a plan");
    // The engine's words are there, folded, after the code's own sentence.
    expect(screen.getByTestId("notice-detail").textContent).toContain("HTTP 500");
    fireEvent.click(screen.getByTestId("notice-retry"));
    await waitFor(() => expect(onRetry).toHaveBeenCalledTimes(1));
    expect(screen.getByTestId("notice-retry").textContent).toBe("Plan again");
    fireEvent.click(screen.getByTestId("notice-card-settings"));
    expect(onOpenSettings).toHaveBeenCalledTimes(1);
  });

  it("says nothing ran when the chat stopped there", () => {
    show(failed(false));
    expect(screen.getByTestId("notice-body").textContent).toContain("Nothing was run");
  });

  it("names a provider that cannot be reached by its code's sentence, with Try again", () => {
    show({ kind: "provider_refused", code: "ERR_PROVIDER_UNAVAILABLE", detail: "connection refused" });
    expect(screen.getByRole("heading").textContent).not.toContain("ERR_");
    expect(screen.getByTestId("notice-body").textContent).toContain("Nothing was run");
    expect(screen.getByTestId("notice-retry").textContent).toBe("Try again");
  });

  it("offers no action on an older notice, nor on a fallback with nothing to retry", () => {
    show(failed(true), false);
    expect(screen.queryByTestId("notice-retry")).toBeNull();
    document.body.innerHTML = "";
    show({ kind: "questions_left", rounds: 3 });
    expect(screen.getByTestId("notice-body").textContent).toContain("3 rounds");
    expect(screen.queryByTestId("notice-retry")).toBeNull();
  });

  it("shows the action's error instead of swallowing it", async () => {
    const onRetry = vi.fn(async () => "A turn is already running in this chat.");
    render(<NoticeCard message={noticeMessage(failed(false))} actionable onRetry={onRetry} onOpenSettings={() => {}} />);
    fireEvent.click(screen.getByTestId("notice-retry"));
    expect((await screen.findByTestId("notice-error")).textContent).toContain("already running");
  });

  it("speaks Russian in the Russian window", () => {
    applyLanguage("ru");
    show(failed(true));
    expect(screen.getByRole("heading").textContent).toContain("Планировщик не смог составить план");
    expect(screen.getByTestId("notice-retry").textContent).toBe("Спланировать заново");
  });
});

describe("after a restore that left tasks open", () => {
  it("names the open tasks and continues with them", async () => {
    const onContinue = vi.fn(async () => null as string | null);
    render(
      <RestoreContinue
        open={[
          { id: 2, title: "Write the tests", status: "active" } as never,
          { id: 3, title: "Tag the release", status: "pending" } as never,
        ]}
        onContinue={onContinue}
      />,
    );
    expect(screen.getByRole("heading").textContent).toBe("The restore left 2 tasks open");
    expect(screen.getByTestId("restore-continue").textContent).toContain("Tag the release");
    fireEvent.click(screen.getByTestId("restore-continue-button"));
    await waitFor(() => expect(onContinue).toHaveBeenCalledTimes(1));
  });
});

describe("the planner's draft while it is made", () => {
  it("counts words and looks at the workspace in the window's language, and stops at the next phase", async () => {
    const { applyEvent, draftedText, initialState } = await import("../lib/chatState");
    const { view } = await import("./fixtures");
    let state = initialState(view([], "planning"), []);
    expect(draftedText(state.drafted)).toBe("");
    state = applyEvent(state, { type: "drafting", words: 40, looked_at: 0 });
    expect(draftedText(state.drafted)).toBe("40 words so far");
    state = applyEvent(state, { type: "drafting", words: 60, looked_at: 2 });
    expect(draftedText(state.drafted)).toBe("60 words so far · looked at the workspace 2 times");
    applyLanguage("ru");
    expect(draftedText(state.drafted)).toBe("написано 60 слов · 2 обращения к рабочей папке");
    applyLanguage("en");
    state = applyEvent(state, { type: "plan_status", phase: "awaiting_approval", text: "" });
    expect(draftedText(state.drafted)).toBe("");
  });
});

describe("where the chat stands around a notice", () => {
  it("finds the message a notice answered, knows when the user spoke since, and when a banner would repeat it", async () => {
    const { askedBefore, reopenedByRestore, saidByNotice, userSpokeAfter } = await import("../lib/notices");
    const { user } = await import("./fixtures");
    const notice = noticeMessage({ kind: "provider_refused", code: "ERR_PROVIDER_UNAVAILABLE", detail: "refused" });
    const messages = [user("u1", "Add a CSV export"), notice];
    expect(askedBefore(messages, "n1")?.content).toBe("Add a CSV export");
    expect(userSpokeAfter(messages, "n1")).toBe(false);
    expect(saidByNotice(messages, "ERR_PROVIDER_UNAVAILABLE")).toBe(true);
    expect(saidByNotice(messages, "ERR_PROVIDER_UNAUTHORIZED")).toBe(false);
    expect(userSpokeAfter([...messages, user("u2", "never mind")], "n1")).toBe(true);
    expect(saidByNotice([...messages, user("u2", "never mind")], "ERR_PROVIDER_UNAVAILABLE")).toBe(false);
    const restore = { ...user("r1", "restored"), restored: { checkpoint: 2, written: [], deleted: [], kept: [] } } as never;
    const open = [{ id: 2, title: "b", status: "pending" }] as never;
    expect(reopenedByRestore([...messages, restore], open)).toBe(true);
    expect(reopenedByRestore([...messages, restore], [])).toBe(false);
    expect(reopenedByRestore(messages, open)).toBe(false);
  });
});
