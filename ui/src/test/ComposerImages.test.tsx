// Images in the message box: pasted (a screenshot), dropped as a data: URL, or a picked image
// file; each a chip with its thumbnail, removable; a chip that cannot go says why; the
// model that cannot see images is named before sending and Send explains instead; a big
// image shows that it is being sent.
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { Composer, type ComposerProps, type DropEvent, type FileSource } from "../components/Composer";
import { ModelPicker } from "../components/ModelPicker";
import type { PickedFile } from "../generated/PickedFile";
import { PNG, PNG_BASE64 } from "./fixtures";

const png = (name = "image.png") => new File([PNG], name, { type: "image/png" });

function paste(files: File[]) {
  fireEvent.paste(screen.getByLabelText("Message"), { clipboardData: { files, items: [] } });
}

function type(text: string) {
  const box = screen.getByLabelText("Message");
  fireEvent.input(box, { target: { value: text } });
  fireEvent.keyDown(box, { key: "Enter" });
}

function source(overrides: Partial<FileSource> = {}) {
  let handler: ((event: DropEvent) => void) | null = null;
  const files: FileSource = {
    pick: vi.fn(async () => []),
    check: vi.fn(async () => []),
    subscribe: (next) => {
      handler = next;
      return () => (handler = null);
    },
    ...overrides,
  };
  return { files, drop: (paths: string[]) => handler?.({ type: "drop", paths }) };
}

function box(props: Partial<ComposerProps> = {}) {
  const onSend = vi.fn(async () => true);
  const { files } = source();
  render(<Composer locked={false} running={false} awaitingApproval={false} onSend={onSend} onStop={() => {}} files={files} {...props} />);
  return onSend;
}

describe("Composer images", () => {
  beforeEach(() => {
    let made = 0;
    URL.createObjectURL = vi.fn(() => `blob:test/${(made += 1)}`);
    URL.revokeObjectURL = vi.fn();
  });
  afterEach(() => vi.restoreAllMocks());

  it("a pasted image is a chip with its thumbnail, and goes as base64 beside the text", async () => {
    const onSend = box();
    paste([png("screenshot.png")]);
    const chip = await screen.findByTestId("attachment-chip");
    expect(chip.textContent).toContain("screenshot.png");
    expect(chip.textContent).toContain("70 B");
    expect(screen.getByTestId("chip-thumb").getAttribute("src")).toBe("blob:test/1");
    type("What is in this screenshot?");
    await waitFor(() => expect(onSend).toHaveBeenCalled());
    expect(onSend).toHaveBeenCalledWith("What is in this screenshot?", [], [{ name: "screenshot.png", media_type: "image/png", data: PNG_BASE64 }]);
    await waitFor(() => expect(screen.queryByTestId("attachment-chips")).toBeNull());
    expect(URL.revokeObjectURL).toHaveBeenCalledWith("blob:test/1");
  });

  it("a paste that is not an image says so at its chip and holds the message back until removed", async () => {
    const onSend = box();
    paste([new File(["<svg/>"], "drawing.svg", { type: "image/svg+xml" })]);
    const chip = await screen.findByTestId("attachment-chip");
    expect(chip.textContent).toContain("not a PNG, JPEG, GIF or WebP image");
    expect(chip.className).toContain("refused");
    type("Look");
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toBe("drawing.svg cannot be attached: remove it first");
    fireEvent.click(screen.getByRole("button", { name: "Remove drawing.svg" }));
    fireEvent.keyDown(screen.getByLabelText("Message"), { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("Look", [], []);
  });

  it("an image the window dropped as a data: URL is read; a web address is refused in words", async () => {
    const { files, drop } = source();
    render(<Composer locked={false} running={false} awaitingApproval={false} onSend={async () => true} onStop={() => {}} files={files} />);
    drop([`data:image/png;base64,${PNG_BASE64}`, "https://example.com/cat.jpg"]);
    await waitFor(() => expect(screen.getAllByTestId("attachment-chip")).toHaveLength(2));
    const [web, inline] = screen.getAllByTestId("attachment-chip");
    expect(web!.textContent).toContain("an address on the web, not a file");
    expect(inline!.textContent).toContain("Pasted image");
    expect(files.check).not.toHaveBeenCalled();
  });

  it("an image dropped where the window, not the shell, takes the drop (a browser's image) is read too", async () => {
    box();
    fireEvent.drop(screen.getByTestId("composer"), { dataTransfer: { files: [png("from-the-web.png")], items: [], types: ["Files"] } });
    expect((await screen.findByTestId("attachment-chip")).textContent).toContain("from-the-web.png");
  });

  it("a picked image file shows the thumbnail the shell reads back, and goes by its path", async () => {
    const picked: PickedFile = { path: "/home/u/photo.png", name: "photo.png", size: 70, error: null, media_type: "image/png" };
    const preview = vi.fn(async () => PNG.buffer as ArrayBuffer);
    const { files } = source({ pick: vi.fn(async () => [picked]), preview });
    const onSend = vi.fn(async () => true);
    render(<Composer locked={false} running={false} awaitingApproval={false} onSend={onSend} onStop={() => {}} files={files} />);
    fireEvent.click(screen.getByRole("button", { name: "Attach files" }));
    await waitFor(() => expect(screen.getByTestId("chip-thumb")).toBeTruthy());
    expect(preview).toHaveBeenCalledWith("/home/u/photo.png");
    type("And this one?");
    expect(onSend).toHaveBeenCalledWith("And this one?", ["/home/u/photo.png"], []);
  });

  it("names the model that cannot see images before sending, offers the picker, and Send explains", async () => {
    const onChooseModel = vi.fn();
    const onNeedModels = vi.fn();
    const onSend = box({ vision: { blind: { sees: false, model: "scripted" }, onChooseModel, onNeedModels } });
    expect(screen.queryByTestId("blind-notice"), "no image, nothing to say").toBeNull();
    paste([png()]);
    const notice = await screen.findByTestId("blind-notice");
    expect(notice.textContent).toContain("The model scripted cannot see images: remove the image before sending, or choose a model that sees them.");
    await waitFor(() => expect(onNeedModels).toHaveBeenCalled());
    const send = screen.getByRole("button", { name: "Send" });
    expect(send.getAttribute("aria-disabled")).toBe("true");
    expect(send.title).toContain("cannot see images");
    expect(notice.getAttribute("role")).toBe("status");
    type("What is this?");
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.getByRole("alert"), "Send says it again, aloud, and only once").toBe(notice);
    fireEvent.click(screen.getByRole("button", { name: "Choose another model" }));
    expect(onChooseModel).toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Remove image.png" }));
    await waitFor(() => expect(screen.queryByTestId("blind-notice")).toBeNull());
    expect(screen.queryByRole("alert"), "said of the image, gone with it").toBeNull();
  });

  it("says it is sending while a message with images goes, and sends it once", async () => {
    let taken: (value: boolean) => void = () => {};
    const onSend = vi.fn(() => new Promise<boolean>((done) => (taken = done)));
    box({ onSend });
    paste([png("a.png"), png("b.png")]);
    await waitFor(() => expect(screen.getAllByTestId("attachment-chip")).toHaveLength(2));
    type("Compare these");
    const sending = await screen.findByTestId("sending-images");
    expect(sending.textContent).toContain("Sending 2 images (140 B)…");
    expect(screen.getByRole("button", { name: "Sending…" }).getAttribute("aria-busy")).toBe("true");
    await waitFor(() => expect(onSend).toHaveBeenCalledTimes(1));
    fireEvent.keyDown(screen.getByLabelText("Message"), { key: "Enter" });
    fireEvent.click(screen.getByRole("button", { name: "Sending…" }));
    await new Promise((done) => setTimeout(done, 20));
    expect(onSend, "a second Enter or click while it goes sends nothing more").toHaveBeenCalledTimes(1);
    taken(true);
    await waitFor(() => expect(screen.queryByTestId("sending-images")).toBeNull());
  });

  it("takes no image with plan feedback, and says why", async () => {
    box({ awaitingApproval: true });
    paste([png()]);
    expect(screen.getByRole("alert").textContent).toBe("Files go with a task or a message, not with plan feedback");
    expect(screen.queryByTestId("attachment-chip")).toBeNull();
  });

  it("the header's picker opens on a request made while it is shown, not on one from before", () => {
    const models = { list: { data: [], providers: [] }, loading: false, error: null, load: vi.fn() };
    const picker = (openRequest: number) => <ModelPicker choice={null} defaultModel="scripted" models={models} busy={false} onChoose={async () => null} onOpenSettings={() => {}} openRequest={openRequest} />;
    const { rerender, unmount } = render(picker(3));
    expect(screen.queryByRole("listbox"), "a chat opened after an earlier request").toBeNull();
    rerender(picker(4));
    expect(screen.getByRole("listbox")).toBeTruthy();
    unmount();
  });
});
