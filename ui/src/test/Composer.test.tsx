import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { Composer, lockedNotice, type DropEvent, type FileSource } from "../components/Composer";
import type { PickedFile } from "../generated/PickedFile";

describe("Composer", () => {
  it("sends on Enter, not on Shift+Enter, and clears once taken", async () => {
    const onSend = vi.fn(async () => true);
    render(<Composer locked={false} running={false} awaitingApproval={false} onSend={onSend} onStop={() => {}} />);
    const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
    fireEvent.input(box, { target: { value: "Add a CSV export" } });
    fireEvent.keyDown(box, { key: "Enter", shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("Add a CSV export", [], []);
    await waitFor(() => expect(box.value).toBe(""));
  });

  it("is locked while questions wait: nothing is sent and it says why", () => {
    const onSend = vi.fn(async () => true);
    render(<Composer locked running={false} awaitingApproval={false} onSend={onSend} onStop={() => {}} />);
    const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
    expect(box.readOnly).toBe(true);
    fireEvent.keyDown(box, { key: "Enter" });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toBe(lockedNotice());
  });

  it("never sends an empty message, and offers Stop while a turn runs", () => {
    const onSend = vi.fn(async () => true);
    const onStop = vi.fn();
    const { rerender } = render(<Composer locked={false} running={false} awaitingApproval={false} onSend={onSend} onStop={onStop} />);
    fireEvent.input(screen.getByLabelText("Message"), { target: { value: "   " } });
    fireEvent.keyDown(screen.getByLabelText("Message"), { key: "Enter" });
    expect(onSend).not.toHaveBeenCalled();
    rerender(<Composer locked={false} running awaitingApproval={false} onSend={onSend} onStop={onStop} />);
    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(onStop).toHaveBeenCalled();
  });

  describe("files", () => {
    const picked = (name: string, size: number, error: string | null = null): PickedFile => ({ path: `/home/u/${name}`, name, size, error });
    /** A file source whose drops the test sends by hand. */
    function source(pick: PickedFile[], check: (paths: string[]) => PickedFile[]) {
      let handler: ((event: DropEvent) => void) | null = null;
      const files: FileSource = {
        pick: vi.fn(async () => pick),
        check: vi.fn(async (paths: string[]) => check(paths)),
        subscribe: (next) => {
          handler = next;
          return () => (handler = null);
        },
      };
      return { files, drop: (event: DropEvent) => handler?.(event), subscribed: () => handler !== null };
    }

    it("shows picked and dropped files as chips with name and size, removable, and sends their paths", async () => {
      const onSend = vi.fn(async () => true);
      const { files, drop } = source([picked("orders.csv", 12_345)], (paths) => paths.map((path) => picked(path.split("/").pop()!, 2_500_000)));
      render(<Composer locked={false} running={false} awaitingApproval={false} onSend={onSend} onStop={() => {}} files={files} />);
      fireEvent.click(screen.getByRole("button", { name: "Attach files" }));
      await waitFor(() => expect(screen.getAllByTestId("attachment-chip")).toHaveLength(1));
      expect(screen.getByTestId("attachment-chip").textContent).toContain("orders.csv12.3 kB");
      drop({ type: "over" });
      await waitFor(() => expect(screen.getByTestId("drop-hint")).toBeTruthy());
      drop({ type: "drop", paths: ["/home/u/photo.png", "/home/u/orders.csv"] });
      await waitFor(() => expect(screen.getAllByTestId("attachment-chip")).toHaveLength(2));
      expect(screen.queryByTestId("drop-hint")).toBeNull();
      expect(screen.getAllByTestId("attachment-chip")[1]?.textContent).toContain("photo.png2.5 MB");
      fireEvent.click(screen.getByRole("button", { name: "Remove orders.csv" }));
      const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
      fireEvent.input(box, { target: { value: "Look at this" } });
      fireEvent.keyDown(box, { key: "Enter" });
      expect(onSend).toHaveBeenCalledWith("Look at this", ["/home/u/photo.png"], []);
      await waitFor(() => expect(screen.queryByTestId("attachment-chips")).toBeNull());
    });

    it("a file that cannot be attached says why and holds the message back until removed", async () => {
      const onSend = vi.fn(async () => true);
      const { files } = source([picked("huge.bin", 0, "attachment is 30.0 MB; files of at most 25.0 MB can be attached")], () => []);
      render(<Composer locked={false} running={false} awaitingApproval={false} onSend={onSend} onStop={() => {}} files={files} />);
      fireEvent.click(screen.getByRole("button", { name: "Attach files" }));
      await waitFor(() => expect(screen.getByTestId("attachment-chip").textContent).toContain("at most 25.0 MB"));
      fireEvent.input(screen.getByLabelText("Message"), { target: { value: "Read it" } });
      fireEvent.keyDown(screen.getByLabelText("Message"), { key: "Enter" });
      expect(onSend).not.toHaveBeenCalled();
      expect(screen.getByRole("alert").textContent).toBe("huge.bin cannot be attached: remove it first");
    });

    it("takes no files with plan feedback: the paperclip waits and drops are not listened to", () => {
      const { files, subscribed } = source([], () => []);
      render(<Composer locked={false} running={false} awaitingApproval onSend={async () => true} onStop={() => {}} files={files} />);
      expect((screen.getByRole("button", { name: "Attach files" }) as HTMLButtonElement).disabled).toBe(true);
      expect(subscribed()).toBe(false);
    });
  });
});
