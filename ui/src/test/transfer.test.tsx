// Export and import from the window: the dialog first, then the engine with the path chosen;
// a cancelled dialog does nothing; a refusal is said in words (the engine's reason after the
// window's lead). The chat's menu by keyboard; the sidebar's Import says why not.
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { ChatMenu } from "../components/ChatMenu";
import { Sidebar } from "../components/Sidebar";
import { exportChatTo, importChatFrom, type TransferSource } from "../lib/transfer";
import { view } from "./fixtures";

function source(overrides: Partial<TransferSource> = {}): TransferSource {
  return {
    chooseExportFile: vi.fn(async () => "/home/u/Chat.md"),
    exportChat: vi.fn(async () => {}),
    chooseImportFile: vi.fn(async () => "/home/u/chat.json"),
    importChat: vi.fn(async () => ({ ...view([]), id: "imported" })),
    ...overrides,
  };
}

const refusal = (message: string) => Promise.reject({ code: "ERR_BAD_REQUEST", message });

describe("export and import", () => {
  it("exports to the path the dialog chose, and does nothing when it was cancelled", async () => {
    const shell = source();
    expect(await exportChatTo(shell, "c1", "markdown")).toBe("/home/u/Chat.md");
    expect(shell.exportChat).toHaveBeenCalledWith("c1", "markdown", "/home/u/Chat.md");
    const cancelled = source({ chooseExportFile: vi.fn(async () => null) });
    expect(await exportChatTo(cancelled, "c1", "json")).toBeNull();
    expect(cancelled.exportChat).not.toHaveBeenCalled();
  });

  it("says why an export was not written", async () => {
    const shell = source({ exportChat: () => refusal("cannot write /root/Chat.json: Permission denied (os error 13)") });
    await expect(exportChatTo(shell, "c1", "json")).rejects.toThrow("The chat was not exported: cannot write /root/Chat.json: Permission denied");
  });

  it.each([
    ["a newer format", "this export was made by a newer Preflight: format 2, this build reads 1; update Preflight to import it"],
    ["not JSON", "the file is not JSON: expected value at line 1 column 1"],
    ["too big", "the file is larger than 64 MiB, the most an import reads"],
  ])("an import refused (%s) is said with the engine's reason", async (_, reason) => {
    const imported = await importChatFrom(source({ importChat: () => refusal(reason) }));
    expect(imported).toEqual({ kind: "refused", text: `The chat was not imported: ${reason}` });
  });

  it("an import answers the new chat, or nothing when cancelled", async () => {
    expect(await importChatFrom(source())).toMatchObject({ kind: "imported", view: { id: "imported" } });
    expect(await importChatFrom(source({ chooseImportFile: vi.fn(async () => null) }))).toEqual({ kind: "cancelled" });
  });

  it("the chat's menu: ↓ opens it at its first item, Escape gives the focus back, a choice exports", async () => {
    const onExport = vi.fn(async () => "/home/u/Where do the orders live.json");
    render(<ChatMenu onExport={onExport} />);
    const button = screen.getByRole("button", { name: "Chat menu" });
    fireEvent.keyDown(button, { key: "ArrowDown" });
    const items = await screen.findAllByRole("menuitem");
    expect(items.map((item) => item.textContent)).toEqual(["Export as Markdown…", "Export as JSON…"]);
    await waitFor(() => expect(document.activeElement).toBe(items[0]));
    fireEvent.keyDown(items[0]!, { key: "ArrowDown" });
    expect(document.activeElement).toBe(items[1]);
    fireEvent.keyDown(items[1]!, { key: "Escape" });
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(button);
    fireEvent.click(button);
    fireEvent.click(await screen.findByRole("menuitem", { name: "Export as JSON…" }));
    expect(onExport).toHaveBeenCalledWith("json");
    const done = await screen.findByTestId("export-done");
    expect(done.textContent).toContain("Exported to /home/u/Where do the orders live.json");
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByTestId("export-done"), "closed by its ×").toBeNull();
  });

  it("the chat's menu says a refusal", async () => {
    render(<ChatMenu onExport={() => Promise.reject(new Error("The chat was not exported: disk full"))} />);
    fireEvent.click(screen.getByRole("button", { name: "Chat menu" }));
    fireEvent.click(await screen.findByRole("menuitem", { name: "Export as Markdown…" }));
    expect((await screen.findByRole("alert")).textContent).toContain("The chat was not exported: disk full");
  });

  it("the sidebar's Import says why a file was not imported", async () => {
    const onImport = vi.fn(async () => "The chat was not imported: the file is not JSON");
    render(<Sidebar chats={[]} selectedId={null} onSelect={() => {}} onNew={() => {}} onRename={() => {}} onDelete={() => {}} onSettings={() => {}} onImport={onImport} />);
    fireEvent.click(screen.getByRole("button", { name: "Import a chat…" }));
    expect((await screen.findByTestId("import-error")).textContent).toBe("The chat was not imported: the file is not JSON");
  });
});
