// A plan finished but not verified (issue 49): the completion card says so in its heading and
// tone, gives the engine's reasons inside a sentence in the window's language, names the tasks
// open again, offers Run the checks again (busy until the new verdict arrives), Continue (only
// with tasks open again) and Accept as is (a second step says what accepting records); once
// accepted it says when, and offers nothing. Any verdict says how many planned steps
// auto-approve dropped without the user.
import { act, fireEvent, render, screen, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";

import { CompletionCard } from "../components/CompletionCard";
import { Messages } from "../components/Messages";
import type { Completion } from "../generated/Completion";
import type { FinalizationNote as Note } from "../generated/FinalizationNote";
import { applyEvent, initialState } from "../lib/chatState";
import { applyLanguage, formatTime } from "../lib/i18n";
import { assistant, user, view } from "./fixtures";

const file = ".dwp/plans/PLAN_keep/FINALIZATION.json";
const path = `/home/u/project/${file}`;
const REASON = "task 1: gate `test -f keep.txt` fails when run again (exit code 1)";

function note(overrides: Partial<Note> = {}): Note {
  return { verdict: "UNVERIFIED", reasons: [REASON], file, path, gates_rerun: 2, reopened: [1], dropped_without_user: 0, planned: 2, ...overrides };
}

function completion(finalization: Note, lastRun = "2026-12-04T10:08:00.000Z"): Completion {
  const gate = (command: string, passes: boolean) => ({ command, exit_code: passes ? 0 : 1, passes, evidence: "", duration_ms: 3, last_run: lastRun, timed_out: false });
  return {
    summary: "",
    deviations: [],
    adherence: { steps: 2, done_as_planned: 2, modified: 0, dropped: 0, added: 0, in_order: true },
    planned: [
      { id: 1, title: "Create keep.txt" },
      { id: 2, title: "Write out.txt" },
    ],
    tasks: [
      { id: 1, title: "Create keep.txt", status: "pending", origin: "plan", gate: gate("test -f keep.txt", false) },
      { id: 2, title: "Write out.txt", status: "done", origin: "plan", gate: gate("test -f out.txt", true) },
    ],
    stops_and_continues: [],
    finished_at: "2026-12-04T10:09:00.000Z",
    finalization,
  };
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const button = (testId: string) => screen.getByTestId(testId) as HTMLButtonElement;
const actionsShown = () => ["finalization-verify", "finalization-continue", "finalization-accept"].filter((id) => screen.queryByTestId(id) !== null);

describe("a plan finished but not verified", () => {
  afterEach(() => applyLanguage("en"));

  it("says so in its heading and tone, with the reasons, the tasks open again and the three ways on", () => {
    render(<CompletionCard completion={completion(note())} onVerify={async () => null} onAccept={async () => null} onContinue={async () => null} />);
    const card = screen.getByRole("region", { name: "Finished, not verified" });
    expect(card.dataset.standing).toBe("not_verified");
    expect(card.classList.contains("not_verified")).toBe(true);
    expect(within(card).getByRole("heading", { level: 3 }).textContent).toBe("Finished, not verified");
    expect(card.textContent).not.toContain("Plan completed");
    const verdict = screen.getByTestId("finalization");
    expect(verdict.textContent).toContain("Preflight could not confirm the work:");
    expect([...screen.getByTestId("finalization-reasons").querySelectorAll("li")].map((li) => li.textContent)).toEqual([REASON]);
    expect(verdict.textContent).toContain("1 task is open again: its check failed when run again.");
    expect([...screen.getByTestId("finalization-reopened").querySelectorAll("li")].map((li) => li.textContent)).toEqual(["#1 Create keep.txt"]);
    expect(actionsShown()).toEqual(["finalization-verify", "finalization-continue", "finalization-accept"]);
    expect(button("finalization-verify").textContent).toBe("Run the checks again");
    expect(button("finalization-continue").textContent).toBe("Continue");
    expect(button("finalization-accept").textContent).toBe("Accept as is");
    expect(screen.queryByTestId("finalization-auto-dropped")).toBeNull();
    // The steps as the verdict left them: step 1 open again, its turn's passing run not shown.
    expect(within(card).getByRole("heading", { level: 4, name: "Planned steps" })).toBeTruthy();
    const steps = [...screen.getByTestId("completion-steps").querySelectorAll("li")];
    expect(steps.map((li) => li.className)).toEqual(["pending", "done"]);
    expect(steps[0]!.textContent).toBe("○ Create keep.txt — open again: its check failed when run again");
    expect(within(steps[0]!).queryByTestId("completion-gate")).toBeNull();
    expect(within(steps[1]!).getByTestId("completion-gate").textContent).toContain("test -f out.txt");
  });

  it("offers no Continue when no task is open again", () => {
    render(<CompletionCard completion={completion(note({ reopened: [], reasons: ["task 2 has no gate record to run again"] }))} onVerify={async () => null} onAccept={async () => null} onContinue={async () => null} />);
    expect(screen.getByTestId("completion-title").textContent).toBe("Finished, not verified");
    expect(screen.queryByTestId("finalization-reopened")).toBeNull();
    expect(actionsShown()).toEqual(["finalization-verify", "finalization-accept"]);
  });

  it("runs the checks again once, busy until the new verdict arrives, which then replaces the card's state", async () => {
    const pending = deferred<string | null>();
    const onVerify = vi.fn(() => pending.promise);
    const { rerender } = render(<CompletionCard completion={completion(note())} onVerify={onVerify} onAccept={async () => null} onContinue={async () => null} />);
    fireEvent.click(button("finalization-verify"));
    fireEvent.click(button("finalization-verify"));
    expect(onVerify).toHaveBeenCalledTimes(1);
    const busy = () => [button("finalization-verify").disabled, button("finalization-verify").getAttribute("aria-busy"), button("finalization-verify").textContent];
    expect(busy()).toEqual([true, "true", "Running the checks…"]);
    expect(button("finalization-accept").disabled).toBe(true);
    expect(button("finalization-continue").disabled).toBe(true);
    // Accepted (202): the checks run now; the view the engine answered with holds the old verdict.
    await act(async () => pending.resolve(null));
    rerender(<CompletionCard completion={completion(note())} onVerify={onVerify} onAccept={async () => null} onContinue={async () => null} />);
    expect(busy()).toEqual([true, "true", "Running the checks…"]);
    // They come back failing again (new gate records): the card is ready for the next choice.
    rerender(<CompletionCard completion={completion(note(), "2026-12-04T10:12:00.000Z")} onVerify={onVerify} onAccept={async () => null} onContinue={async () => null} />);
    expect(busy()).toEqual([false, "false", "Run the checks again"]);
    // And passing: a completed plan, nothing to choose.
    rerender(<CompletionCard completion={completion(note({ verdict: "VERIFIED", reasons: [], reopened: [] }), "2026-12-04T10:15:00.000Z")} onVerify={onVerify} onAccept={async () => null} onContinue={async () => null} />);
    expect(screen.getByTestId("completion-title").textContent).toBe("Plan completed");
    expect(screen.getByTestId("completion-card").dataset.standing).toBe("completed");
    expect(actionsShown()).toEqual([]);
  });

  it("says a refused re-run in words, and can be tried again", async () => {
    const onVerify = vi.fn(async () => "The chat has no unverified plan to check again.");
    render(<CompletionCard completion={completion(note())} onVerify={onVerify} onAccept={async () => null} onContinue={async () => null} />);
    await act(async () => void fireEvent.click(button("finalization-verify")));
    const error = await screen.findByTestId("finalization-error");
    expect(error.getAttribute("role")).toBe("alert");
    expect(error.textContent).toBe("The chat has no unverified plan to check again.");
    expect(button("finalization-verify").disabled).toBe(false);
    expect(button("finalization-verify").textContent).toBe("Run the checks again");
  });

  it("accepts only after a second step that says what accepting records", async () => {
    const pending = deferred<string | null>();
    const onAccept = vi.fn(() => pending.promise);
    render(<CompletionCard completion={completion(note())} onVerify={async () => null} onAccept={onAccept} onContinue={async () => null} />);
    expect(screen.queryByTestId("finalization-accept-confirm")).toBeNull();
    fireEvent.click(button("finalization-accept"));
    expect(onAccept).not.toHaveBeenCalled();
    const confirm = screen.getByRole("group", { name: "Accept as is" });
    expect(confirm.textContent).toContain("the plan stays marked not verified");
    expect(confirm.textContent).toContain("its plan folder records that you accepted it as is");
    // Back: nothing recorded, the first step again.
    fireEvent.click(button("finalization-accept-back"));
    expect(screen.queryByTestId("finalization-accept-confirm")).toBeNull();
    expect(onAccept).not.toHaveBeenCalled();
    fireEvent.click(button("finalization-accept"));
    fireEvent.click(button("finalization-accept-yes"));
    fireEvent.click(button("finalization-accept-yes"));
    expect(onAccept).toHaveBeenCalledTimes(1);
    expect(button("finalization-accept-yes").disabled).toBe(true);
    expect(button("finalization-verify").disabled).toBe(true);
    await act(async () => pending.resolve("The plan was already accepted."));
    expect((await screen.findByTestId("finalization-error")).textContent).toBe("The plan was already accepted.");
    expect(button("finalization-accept-yes").disabled).toBe(false);
  });

  it("continues the open tasks through the chat's Continue, its refusal said", async () => {
    const onContinue = vi.fn(async () => "A turn is already running in this chat.");
    render(<CompletionCard completion={completion(note())} onVerify={async () => null} onAccept={async () => null} onContinue={onContinue} />);
    await act(async () => void fireEvent.click(button("finalization-continue")));
    expect(onContinue).toHaveBeenCalledTimes(1);
    expect((await screen.findByTestId("finalization-error")).textContent).toBe("A turn is already running in this chat.");
  });

  it("holds its actions while a turn runs", () => {
    render(<CompletionCard completion={completion(note())} busy onVerify={async () => null} onAccept={async () => null} onContinue={async () => null} />);
    expect(["finalization-verify", "finalization-continue", "finalization-accept"].map((id) => button(id).disabled)).toEqual([true, true, true]);
  });

  it("once accepted says so with the date, still not verified, and offers nothing", () => {
    const at = "2026-12-04T10:20:00.000Z";
    render(<CompletionCard completion={completion(note({ accepted_at: at }))} onVerify={async () => null} onAccept={async () => null} onContinue={async () => null} />);
    const card = screen.getByRole("region", { name: "Accepted as is, not verified" });
    expect(card.dataset.standing).toBe("accepted");
    expect(screen.getByTestId("finalization-accepted").textContent).toBe(`You accepted it as is on ${formatTime(at)}; the plan stays marked not verified.`);
    expect(screen.getByTestId("finalization").dataset.verdict).toBe("UNVERIFIED");
    expect(screen.getByTestId("finalization-reasons").textContent).toContain(REASON);
    expect(actionsShown()).toEqual([]);
    expect(screen.queryByTestId("finalization-accept-confirm")).toBeNull();
  });

  it("says how many planned steps auto-approve dropped, whatever the verdict", () => {
    const { unmount } = render(<CompletionCard completion={completion(note({ verdict: "VERIFIED", reasons: [], reopened: [], dropped_without_user: 3, planned: 4 }))} />);
    expect(screen.getByTestId("completion-title").textContent).toBe("Plan completed");
    expect(screen.getByTestId("finalization-auto-dropped").textContent).toBe("3 of 4 planned steps were dropped without you (auto-approve)");
    unmount();
    render(<CompletionCard completion={completion(note({ reasons: ["3 of 4 planned steps were dropped automatically"], reopened: [], dropped_without_user: 1, planned: 4 }))} />);
    expect(screen.getByTestId("finalization-auto-dropped").textContent).toBe("1 of 4 planned steps was dropped without you (auto-approve)");
    expect(screen.getByTestId("completion-title").textContent).toBe("Finished, not verified");
    // Without the chat's actions (a card shown read-only), nothing to press.
    expect(actionsShown()).toEqual([]);
  });

  it("in Russian: the heading, the sentence around the engine's English reasons, the plurals", () => {
    applyLanguage("ru");
    const { unmount } = render(<CompletionCard completion={completion(note({ reopened: [1, 2], dropped_without_user: 2, planned: 5 }))} onVerify={async () => null} onAccept={async () => null} onContinue={async () => null} />);
    expect(screen.getByTestId("completion-title").textContent).toBe("Завершено, не подтверждено");
    const verdict = screen.getByTestId("finalization");
    expect(verdict.textContent).toContain("Preflight не смог подтвердить работу:");
    expect(screen.getByTestId("finalization-reasons").textContent).toBe(REASON);
    expect(verdict.textContent).toContain("Снова открыты 2 задачи: их проверки не прошли при повторном запуске.");
    expect(screen.getByTestId("finalization-auto-dropped").textContent).toBe("Без вас (автоодобрение) отброшено шагов плана: 2 из 5");
    expect(button("finalization-verify").textContent).toBe("Запустить проверки снова");
    fireEvent.click(button("finalization-accept"));
    expect(screen.getByTestId("finalization-accept-confirm").textContent).toContain("план остаётся помеченным как неподтверждённый");
    unmount();
    render(<CompletionCard completion={completion(note({ accepted_at: "2026-12-04T10:20:00.000Z", reopened: [5, 6, 7, 8, 9] }))} />);
    expect(screen.getByTestId("completion-title").textContent).toBe("Принято как есть, не подтверждено");
    expect(screen.getByTestId("finalization").textContent).toContain("Снова открыто 5 задач");
  });
});

describe("the chat's completion card", () => {
  const noop = () => {};
  const base = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null };

  function chatWith(finalization: Note, phase: "idle" | "executing" = "idle") {
    const chat = view([user("u1", "keep a file"), assistant("a1", "Both steps are done.")], phase);
    return initialState({ ...chat, state: { ...chat.state, completion: completion(finalization) } }, []);
  }

  it("runs the chat's re-run, Accept as is and Continue, and holds them while a turn runs", async () => {
    const actions = { ...base, onContinue: vi.fn(async () => null), onVerifyPlan: vi.fn(async () => null), onAcceptPlan: vi.fn(async () => null) };
    const { rerender } = render(<Messages state={chatWith(note())} actions={actions} />);
    await act(async () => void fireEvent.click(button("finalization-continue")));
    expect(actions.onContinue).toHaveBeenCalledTimes(1);
    fireEvent.click(button("finalization-accept"));
    await act(async () => void fireEvent.click(button("finalization-accept-yes")));
    expect(actions.onAcceptPlan).toHaveBeenCalledTimes(1);
    await act(async () => void fireEvent.click(button("finalization-verify")));
    expect(actions.onVerifyPlan).toHaveBeenCalledTimes(1);
    rerender(<Messages state={chatWith(note(), "executing")} actions={actions} />);
    expect(button("finalization-continue").disabled).toBe(true);
  });

  it("is ready again when the re-run's verdict arrives, even one that reads as the last", async () => {
    const actions = { ...base, onContinue: async () => null, onVerifyPlan: vi.fn(async () => null), onAcceptPlan: async () => null };
    const before = chatWith(note());
    const { rerender } = render(<Messages state={before} actions={actions} />);
    await act(async () => void fireEvent.click(button("finalization-verify")));
    expect(actions.onVerifyPlan).toHaveBeenCalledTimes(1);
    expect(button("finalization-verify").getAttribute("aria-busy")).toBe("true");
    // The same checks failing the same way: the same record, heard as a new verdict.
    const heard = applyEvent(before, { type: "completion", completion: completion(note()) });
    rerender(<Messages state={heard} actions={actions} />);
    expect(button("finalization-verify").getAttribute("aria-busy")).toBe("false");
    expect(button("finalization-verify").textContent).toBe("Run the checks again");
  });
});
