import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { Composer, LOCKED_NOTICE } from "../components/Composer";

describe("Composer", () => {
  it("sends on Enter, not on Shift+Enter, and clears once taken", async () => {
    const onSend = vi.fn(async () => true);
    render(<Composer locked={false} running={false} awaitingApproval={false} onSend={onSend} onStop={() => {}} />);
    const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
    fireEvent.input(box, { target: { value: "Add a CSV export" } });
    fireEvent.keyDown(box, { key: "Enter", shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("Add a CSV export");
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
    expect(screen.getByRole("alert").textContent).toBe(LOCKED_NOTICE);
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
});
