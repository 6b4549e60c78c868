// The workspace's checkpoints in the window (issue 31): each task's figures in the panel, the
// diff dialog (unified and side by side, binary, too large, left-out files, workspace text
// as text), the restore confirmation, a restore's entry in the chat, the completion card's
// restores, and the Russian texts of the panel and the confirmation.
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { CompletionCard, stopsLine } from "../components/CompletionCard";
import { DiffView } from "../components/DiffView";
import { Messages, typedByUser } from "../components/Messages";
import { RestoreDialog } from "../components/RestoreDialog";
import { TaskPanel } from "../components/TaskPanel";
import type { CheckpointDiff } from "../generated/CheckpointDiff";
import type { CheckpointList } from "../generated/CheckpointList";
import type { Completion } from "../generated/Completion";
import type { Message } from "../generated/Message";
import type { RestorePreview } from "../generated/RestorePreview";
import type { Task } from "../generated/Task";
import { initialState } from "../lib/chatState";
import { leftOutBetween, planRange } from "../lib/checkpoints";
import { applyLanguage } from "../lib/i18n";
import { assistant, user, view } from "./fixtures";

const tasks: Task[] = [
  { id: 1, title: "Add the route", status: "done", origin: "plan" },
  { id: 2, title: "Write the test", status: "active", origin: "plan" },
  { id: 3, title: "Tidy up", status: "pending", origin: "plan" },
];

const stat = (files: number, additions: number, deletions: number) => ({ files, additions, deletions });
const checkpoint = (n: number, reason: CheckpointList["checkpoints"][number]["reason"], extra: Partial<CheckpointList["checkpoints"][number]> = {}) => ({
  n,
  reason,
  created_at: `2026-12-01T10:0${n}:00Z`,
  closed: [],
  since_previous: stat(0, 0, 0),
  left_out: [],
  ...extra,
});

const list: CheckpointList = {
  checkpoints: [
    checkpoint(1, "approval"),
    checkpoint(2, "task", { started: 1 }),
    checkpoint(3, "turn_start", { left_out: [{ path: "data/big.bin", bytes: 120_000_000, reason: "too large" }] }),
    checkpoint(4, "task", { closed: [1], started: 2, since_previous: stat(2, 12, 4) }),
    checkpoint(5, "turn_end", { since_previous: stat(1, 1, 0) }),
  ],
  tasks: [
    { task: 1, from: 2, to: 4, stat: stat(2, 12, 4) },
    { task: 2, from: 4, stat: stat(1, 1, 0) },
    { task: 3, from: 5, stat: stat(0, 0, 0) },
  ],
  undo_turn: 3,
};

const PATCH = [
  "diff --git a/src/main.rs b/src/main.rs",
  "--- a/src/main.rs",
  "+++ b/src/main.rs",
  "@@ -1,4 +1,5 @@",
  " fn main() {",
  "     let x = 1;",
  '-    println!("old");',
  '+    println!("new");',
  '+    let s = "<script>alert(1)</script>";',
  " }",
  "\\ No newline at end of file",
  "",
].join("\n");

const HOSTILE = 'src/<img src=x onerror="alert(1)">.rs';

const diff: CheckpointDiff = {
  from: 2,
  to: 5,
  stat: stat(5, 5003, 21),
  files: [
    { path: HOSTILE, status: "modified", additions: 2, deletions: 1, binary: false, too_large: false, patch: PATCH },
    { path: "logo.png", status: "modified", additions: 0, deletions: 0, binary: true, too_large: false },
    { path: "data.csv", status: "added", additions: 5000, deletions: 20, binary: false, too_large: true },
    { path: "b.txt", old_path: "a.txt", status: "renamed", additions: 1, deletions: 0, binary: false, too_large: false, patch: "@@ -0,0 +1 @@\n+hello\n" },
  ],
};

describe("the task panel's checkpoints", () => {
  it("shows each task's figures as a button opening its diff, nothing for a span with no change", () => {
    const onTaskDiff = vi.fn();
    render(<TaskPanel tasks={tasks} finished={false} checkpoints={list} onTaskDiff={onTaskDiff} onRestoreTask={vi.fn()} onUndoTurn={vi.fn()} />);
    expect(screen.getByTestId("task-diff-1").textContent).toBe("2 files, +12 −4");
    expect(screen.getByTestId("task-diff-2").textContent).toBe("1 file, +1 −0");
    expect(screen.queryByTestId("task-diff-3")).toBeNull();
    fireEvent.click(screen.getByTestId("task-diff-2"));
    expect(onTaskDiff).toHaveBeenCalledWith(tasks[1], list.tasks[1]);
  });

  it("offers restore to before each task with a span and Undo the last turn, neither while a turn runs", () => {
    const onRestoreTask = vi.fn();
    const onUndoTurn = vi.fn();
    const { rerender } = render(<TaskPanel tasks={tasks} finished={false} checkpoints={list} onRestoreTask={onRestoreTask} onUndoTurn={onUndoTurn} />);
    expect(screen.getAllByTestId(/^restore-task-/).map((button) => button.dataset.testid)).toEqual(["restore-task-1", "restore-task-2", "restore-task-3"]);
    // The ↺ has its word beside it and its tooltip, not an icon alone.
    expect(screen.getByTestId("restore-task-1").textContent).toBe("↺ Restore");
    expect(screen.getByTestId("restore-task-1").getAttribute("title")).toBe("Restore to before this task");
    fireEvent.click(screen.getByTestId("restore-task-1"));
    expect(onRestoreTask).toHaveBeenCalledWith(tasks[0], list.tasks[0]);
    fireEvent.click(screen.getByTestId("undo-turn"));
    expect(onUndoTurn).toHaveBeenCalledWith(3);
    rerender(<TaskPanel tasks={tasks} finished={false} checkpoints={list} onRestoreTask={onRestoreTask} onUndoTurn={onUndoTurn} busy />);
    expect((screen.getByTestId("restore-task-1") as HTMLButtonElement).disabled).toBe(true);
    expect(screen.queryByTestId("undo-turn")).toBeNull();
    rerender(<TaskPanel tasks={tasks} finished={false} checkpoints={{ ...list, undo_turn: undefined }} onUndoTurn={onUndoTurn} />);
    expect(screen.queryByTestId("undo-turn")).toBeNull();
    // The engine writes an absent `undo_turn` as null.
    rerender(<TaskPanel tasks={tasks} finished={false} checkpoints={{ ...list, undo_turn: null } as unknown as CheckpointList} onUndoTurn={onUndoTurn} />);
    expect(screen.queryByTestId("undo-turn")).toBeNull();
  });

  it("takes the plan's range from the first approval and the left-out files of a range once each", () => {
    expect(planRange(list)).toEqual({ from: 1, to: 5 });
    expect(planRange({ ...list, checkpoints: list.checkpoints.slice(1) })).toBeNull();
    expect(leftOutBetween(list, 2, 4).map((file) => file.path)).toEqual(["data/big.bin"]);
    expect(leftOutBetween(list, 4)).toEqual([]);
    expect(leftOutBetween(list, 2, null as unknown as undefined).map((file) => file.path)).toEqual(["data/big.bin"]);
  });
});

async function openDiff(leftOut = leftOutBetween(list, 2)) {
  const onClose = vi.fn();
  render(<DiffView title="Changes of task 1: Add the route" load={async () => diff} leftOut={leftOut} onClose={onClose} />);
  await screen.findAllByTestId("diff-file");
  return onClose;
}

describe("the diff view", () => {
  it("shows each file's header, and a unified diff with line numbers, signs and highlighting", async () => {
    await openDiff();
    expect(screen.getByTestId("diff-summary").textContent).toBe("Changed: 5 files, +5003 −21");
    expect(screen.getByTestId("diff-caches-note").textContent).toContain("node_modules");
    const [code, , , renamed] = screen.getAllByTestId("diff-file");
    expect(within(code!).getByTestId("diff-file-path").textContent).toBe(HOSTILE);
    expect(code!.querySelector(".diff-file-head")!.textContent).toBe(`${HOSTILE} modified +2 −1`);
    const rows = [...code!.querySelectorAll("tr.diff-line")].map((row) => [...row.querySelectorAll("td")].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ["1", "1", " fn main() {"],
      ["2", "2", "     let x = 1;"],
      ["3", "", '−    println!("old");'],
      ["", "3", '+    println!("new");'],
      ["", "4", '+    let s = "<script>alert(1)</script>";'],
      ["4", "5", " } (no newline at end of file)"],
    ]);
    expect(code!.querySelector("tr.diff-line.removed")).toBeTruthy();
    expect(code!.querySelector(".diff-hunk")!.textContent).toBe("@@ -1,4 +1,5 @@");
    expect([...code!.querySelectorAll(".hljs-keyword")].map((token) => token.textContent)).toContain("let");
    expect(within(renamed!).getByTestId("diff-file-path").textContent).toBe("a.txt → b.txt");
  });

  it("renders workspace text as text: no element comes from a path or a line", async () => {
    await openDiff();
    expect(document.querySelector("img")).toBeNull();
    expect(document.querySelector("script")).toBeNull();
    expect(screen.getByTestId("diff-view").textContent).toContain('"<script>alert(1)</script>"');
  });

  it("pairs removed and added lines side by side", async () => {
    await openDiff();
    fireEvent.click(screen.getByTestId("diff-mode-split"));
    expect(screen.getByTestId("diff-mode-split").getAttribute("aria-pressed")).toBe("true");
    const table = screen.getAllByTestId("diff-table-split")[0]!;
    const rows = [...table.querySelectorAll("tr.diff-line")].map((row) => [...row.querySelectorAll("td")].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ["1", " fn main() {", "1", " fn main() {"],
      ["2", "     let x = 1;", "2", "     let x = 1;"],
      ["3", '−    println!("old");', "3", '+    println!("new");'],
      ["", "", "4", '+    let s = "<script>alert(1)</script>";'],
      ["4", " } (no newline at end of file)", "5", " } (no newline at end of file)"],
    ]);
    fireEvent.click(screen.getByTestId("diff-mode-unified"));
    expect(screen.queryByTestId("diff-table-split")).toBeNull();
  });

  it("summarises a binary file and a too large one, and names the files the checkpoints left out", async () => {
    await openDiff();
    expect(screen.getByTestId("diff-binary").textContent).toBe("Binary file changed");
    expect(screen.getByTestId("diff-too-large").textContent).toBe("Too large to show: +5000 −20 lines");
    expect(screen.getByTestId("diff-left-out").textContent).toBe(
      "1 file was left out of the checkpoints, so it is not in this diff:data/big.bin (120.0 MB, too large)",
    );
  });

  it("says what a diff past its budget left out, in words", async () => {
    const truncated = { files_left_out: 120, patches_left_out: 3, bytes_left_out: 2_500_000, budget: 4 * 1024 * 1024 };
    render(<DiffView title="t" load={async () => ({ ...diff, truncated })} leftOut={[]} onClose={vi.fn()} />);
    const note = await screen.findByTestId("diff-truncated");
    expect(note.textContent).toContain("120 more files");
    expect(note.textContent).toContain("3 listed files");
  });

  it("says nothing of a budget when the diff is whole", async () => {
    await openDiff();
    expect(screen.queryByTestId("diff-truncated")).toBeNull();
  });

  it("closes on Escape, which goes no further (it must not also stop a turn)", async () => {
    const onClose = await openDiff([]);
    expect(screen.queryByTestId("diff-left-out")).toBeNull();
    const outside = vi.fn();
    window.addEventListener("keydown", outside);
    fireEvent.keyDown(screen.getByTestId("diff-mode-split"), { key: "Escape" });
    window.removeEventListener("keydown", outside);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(outside).not.toHaveBeenCalled();
  });

  it("shows a diff the engine refused as an error", async () => {
    render(<DiffView title="t" load={() => Promise.reject({ code: "ERR_CHECKPOINT", message: "no such commit" })} leftOut={[]} onClose={vi.fn()} />);
    expect((await screen.findByTestId("diff-error")).textContent).toBe("A checkpoint of the workspace could not be taken or restored. — no such commit");
  });
});

const preview: RestorePreview = { to: 2, writes: ["src/a.rs", "notes.md"], deletes: ["src/new.rs"], user_changed: ["notes.md"], reopens: [1, 2], digest: "d2" };

async function openRestore(onConfirm: (overwrite: boolean, digest: string) => Promise<string | null>, busy = false) {
  const onClose = vi.fn();
  render(
    <RestoreDialog
      title="Restore to before task 1: Add the route"
      load={async () => preview}
      onConfirm={onConfirm}
      busy={busy}
      taskTitle={(id) => tasks.find((task) => task.id === id)?.title}
      onClose={onClose}
    />,
  );
  await screen.findByTestId("restore-preview");
  return onClose;
}

describe("the restore confirmation", () => {
  it("lists the files it writes and deletes, the user's own changes apart, and the tasks that open again", async () => {
    await openRestore(vi.fn());
    expect(screen.getByTestId("restore-writes").textContent).toBe("Writes back 1 file:src/a.rs");
    expect(screen.getByTestId("restore-deletes").textContent).toBe("Deletes 1 file:src/new.rs");
    expect(screen.getByTestId("restore-user-changed").textContent).toBe("1 file changed by you since the last checkpoint — kept:notes.md");
    expect(screen.getByTestId("restore-reopens").textContent).toBe("2 tasks open again:#1 Add the route#2 Write the test");
    fireEvent.click(screen.getByTestId("restore-overwrite"));
    expect(screen.getByTestId("restore-user-changed").textContent).toContain("— overwritten:");
  });

  it("confirms with overwrite only when ticked, and closes when done", async () => {
    const onConfirm = vi.fn(async () => null);
    const onClose = await openRestore(onConfirm);
    await act(async () => {
      fireEvent.click(screen.getByTestId("restore-confirm"));
    });
    expect(onConfirm).toHaveBeenLastCalledWith(false, "d2");
    expect(onClose).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByTestId("restore-overwrite"));
    await act(async () => {
      fireEvent.click(screen.getByTestId("restore-confirm"));
    });
    expect(onConfirm).toHaveBeenLastCalledWith(true, "d2");
  });

  it("shows a refusal on the dialog, which stays open", async () => {
    const onClose = await openRestore(async () => "The chat is busy: wait until the turn ends or stop it.");
    await act(async () => {
      fireEvent.click(screen.getByTestId("restore-confirm"));
    });
    expect(screen.getByTestId("restore-error").textContent).toBe("The chat is busy: wait until the turn ends or stop it.");
    expect(onClose).not.toHaveBeenCalled();
  });

  it("cannot be confirmed while a turn runs", async () => {
    await openRestore(vi.fn(), true);
    expect((screen.getByTestId("restore-confirm") as HTMLButtonElement).disabled).toBe(true);
  });
});

const restoredMessage: Message = {
  ...user("r1", "I restored the workspace to checkpoint 4 (before task 2): 1 file(s) written back, 1 deleted."),
  created_at: "2026-12-01T10:10:00Z",
  restored: { checkpoint: 4, before_task: 2, written: ["src/a.rs"], deleted: ["src/new.rs"], kept: ["notes.md"] },
} as Message;

describe("a restore in the chat", () => {
  const noop = () => {};
  const actions = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };

  it("is an entry naming the checkpoint and the task, with the files folded away, never a typed bubble", () => {
    const state = initialState(view([user("u1", "go"), assistant("a1", "done"), restoredMessage]), tasks);
    render(<Messages state={state} actions={actions} edits={{ editing: null, onEditStart: noop, onEditCancel: noop, onEditSend: noop }} />);
    const entry = screen.getByTestId("restore-entry");
    expect(entry.querySelector("summary")!.textContent).toBe("↺ Restored to checkpoint 4 (before task 2 “Write the test”)written 1 · deleted 1 · kept 1");
    expect(entry.textContent).toContain("1 file written back");
    expect(entry.textContent).toContain("1 file you changed, kept");
    expect(within(entry).getByText("notes.md")).toBeTruthy();
    expect(screen.queryByText(/I restored the workspace/, { selector: ".user-text" })).toBeNull();
    expect(screen.getAllByTestId("edit-message")).toHaveLength(1);
    expect(typedByUser(restoredMessage)).toBe(false);
  });
});

function completion(events: Completion["stops_and_continues"]): Completion {
  return {
    summary: "",
    adherence: { steps: 1, done_as_planned: 1, modified: 0, dropped: 0, added: 0, in_order: true },
    deviations: [],
    planned: [{ id: 1, title: "Add the route" }],
    tasks: [tasks[0]!],
    stops_and_continues: events,
    finished_at: "2026-12-01T11:00:00Z",
  };
}

describe("the completion card", () => {
  const at = "2026-12-01T10:30:00Z";
  it("counts restores apart from continues", () => {
    const restored = { kind: "restored" as const, checkpoint: 2, reopened: 1, at };
    expect(stopsLine(completion([restored]))).toBe("restored 1 time");
    expect(stopsLine(completion([{ kind: "stopped", reason: "gate_failed", tasks_left: 1, at }, { kind: "continued", auto: false, at }, restored, restored]))).toBe(
      "The executor stopped 1 time with tasks left (a failed check) · continued 1 time · restored 2 times",
    );
  });

  it("opens the diff of the whole plan when there are checkpoints", () => {
    const onPlanDiff = vi.fn();
    const { rerender } = render(<CompletionCard completion={completion([])} />);
    expect(screen.queryByTestId("plan-diff")).toBeNull();
    rerender(<CompletionCard completion={completion([])} onPlanDiff={onPlanDiff} />);
    fireEvent.click(screen.getByTestId("plan-diff"));
    expect(onPlanDiff).toHaveBeenCalledTimes(1);
  });
});

describe("in Russian", () => {
  it("the panel's figures take the plural the number needs", () => {
    applyLanguage("ru");
    const many = { ...list, tasks: [{ task: 3, from: 5, stat: stat(5, 40, 2) }, ...list.tasks.slice(0, 2)] };
    render(<TaskPanel tasks={tasks} finished={false} checkpoints={many} onTaskDiff={vi.fn()} onRestoreTask={vi.fn()} onUndoTurn={vi.fn()} />);
    expect(screen.getByTestId("task-diff-1").textContent).toBe("2 файла, +12 −4");
    expect(screen.getByTestId("task-diff-2").textContent).toBe("1 файл, +1 −0");
    expect(screen.getByTestId("task-diff-3").textContent).toBe("5 файлов, +40 −2");
    expect(screen.getByTestId("undo-turn").textContent).toBe("↺ Отменить последний ход");
    expect(screen.getByTestId("restore-task-1").getAttribute("aria-label")).toBe("Вернуть рабочую папку к состоянию до этой задачи");
  });

  it("the confirmation says what it writes, deletes and keeps", async () => {
    applyLanguage("ru");
    await openRestore(vi.fn());
    await waitFor(() => expect(screen.getByTestId("restore-writes").textContent).toBe("Будет записан обратно 1 файл:src/a.rs"));
    expect(screen.getByTestId("restore-deletes").textContent).toBe("Будет удалён 1 файл:src/new.rs");
    expect(screen.getByTestId("restore-user-changed").textContent).toBe("1 файл вы изменили после последней контрольной точки — он останется как есть:notes.md");
    expect(screen.getByTestId("restore-reopens").textContent).toBe("Снова откроются 2 задачи:#1 Add the route#2 Write the test");
    expect(screen.getByTestId("restore-preview").textContent).toContain("Рабочая папка вернётся к контрольной точке 2.");
    expect(screen.getByTestId("restore-confirm").textContent).toBe("Восстановить");
    expect(screen.getByText("Перезаписать и мои изменения")).toBeTruthy();
  });
});
