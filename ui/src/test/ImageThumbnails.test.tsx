// Images in the conversation: a user message's images as thumbnails read through the open
// chat's loader (its other files still listed), a tool's images under its block; a click
// opens the full image (alt text: the file's name), Escape closes it and the focus goes back.
import type { ComponentChildren } from "preact";
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { MessageFiles } from "../components/Attachments";
import { ImageSource } from "../components/ImageThumbnails";
import { StoredTool } from "../components/ToolBlock";
import type { Attachment } from "../generated/Attachment";
import { PNG } from "./fixtures";

const image = (name: string, source = "pasted"): Attachment => ({ name, size: 70, source, media_type: "image/png" });
const csv: Attachment = { name: "orders.csv", size: 24, source: "/home/u/orders.csv" };

function withLoader(children: ComponentChildren, load = vi.fn(async () => PNG.buffer as ArrayBuffer)) {
  const { unmount } = render(<ImageSource.Provider value={load}>{children}</ImageSource.Provider>);
  return Object.assign(load, { unmount });
}

describe("image thumbnails", () => {
  beforeEach(() => {
    let made = 0;
    URL.createObjectURL = vi.fn(() => `blob:test/${(made += 1)}`);
    URL.revokeObjectURL = vi.fn();
  });
  afterEach(() => vi.restoreAllMocks());

  it("a message's images are thumbnails read from its copies; its other files stay listed", async () => {
    const load = withLoader(<MessageFiles attachments={[image("shot.png"), csv]} files={[]} />);
    const thumbnail = await screen.findByRole("img", { name: "shot.png" });
    expect(thumbnail.getAttribute("src")).toBe("blob:test/1");
    expect(load).toHaveBeenCalledWith("shot.png");
    expect(screen.getByTestId("message-files").textContent).toContain("orders.csv");
    expect(screen.getByTestId("message-files").textContent).not.toContain("shot.png");
  });

  it("a click opens the full image; Escape closes it and the focus goes back to the thumbnail", async () => {
    withLoader(<MessageFiles attachments={[image("shot.png")]} files={[]} />);
    await screen.findByRole("img", { name: "shot.png" });
    const button = screen.getByRole("button", { name: "Open shot.png" });
    button.focus();
    fireEvent.click(button);
    const overlay = await screen.findByRole("dialog", { name: "shot.png" });
    expect(overlay.querySelector("img.full-image")?.getAttribute("alt")).toBe("shot.png");
    expect(document.activeElement).toBe(overlay);
    fireEvent.keyDown(overlay, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(document.activeElement).toBe(button);
  });

  it("a copy that cannot be read is named, not shown broken", async () => {
    withLoader(<MessageFiles attachments={[image("gone.png")]} files={[]} />, vi.fn(async () => Promise.reject(new Error("ERR_NOT_FOUND"))));
    expect((await screen.findByTestId("thumbnail-missing")).textContent).toBe("gone.png: its file is not in this chat (an imported chat has none)");
  });

  it("a tool's images show under its block", async () => {
    const call = { id: "c1", name: "screenshot", arguments: "{}" };
    const result = { id: "t1", created_at: "2026-11-30T10:00:02Z", role: "tool" as const, tool_call_id: "c1", name: "screenshot", content: "1 image", is_error: false, attachments: [image("page.png", "tool screenshot")] };
    withLoader(<StoredTool call={call} result={result} />);
    expect(await screen.findByRole("img", { name: "page.png" })).toBeTruthy();
  });

  it("the URLs go with the thumbnails", async () => {
    const { unmount } = withLoader(<MessageFiles attachments={[image("shot.png")]} files={[]} />);
    await screen.findByRole("img", { name: "shot.png" });
    unmount();
    expect(URL.revokeObjectURL).toHaveBeenCalledWith("blob:test/1");
  });
});
