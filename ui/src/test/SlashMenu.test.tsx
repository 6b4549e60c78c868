import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { Composer } from "../components/Composer";
import { PromptExpansion, type OfferSource } from "../components/OfferMenu";
import type { PromptInfo } from "../generated/PromptInfo";
import type { ResourceInfo } from "../generated/ResourceInfo";
import { triggerOf } from "../lib/slashMenu";

const prompt = (name: string, args: [string, boolean][] = [], description?: string): PromptInfo => ({
  server: "everything",
  name,
  command: name,
  description,
  arguments: args.map(([argument, required]) => ({ name: argument, required, description: `The ${argument}` })),
});

const resource = (name: string): ResourceInfo => ({
  server: "everything",
  name,
  uri: `demo://resource/static/document/${name}`,
  mime_type: "text/markdown",
  reference: `@everything:demo://resource/static/document/${name}`,
});

function offers(failed: string[] = []): OfferSource {
  return {
    prompts: vi.fn(async () => ({
      prompts: [prompt("simple-prompt", [], "A prompt with no arguments"), prompt("args-prompt", [["city", true], ["state", false]], "Weather")],
      failed: failed.map((server) => ({ server, error: "did not answer" })),
    })),
    resources: vi.fn(async () => ({ resources: [resource("architecture.md"), resource("features.md")], failed: [] })),
  };
}

function setup(source = offers()) {
  const onSend = vi.fn(async () => true);
  render(<Composer locked={false} running={false} awaitingApproval={false} onSend={onSend} onStop={() => {}} offers={source} />);
  const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
  const type = (value: string) => fireEvent.input(box, { target: { value } });
  return { box, type, onSend, source };
}

const options = () => screen.queryAllByRole("option").map((option) => option.querySelector(".offer-label")?.textContent);

describe("the slash menu", () => {
  it("opens on / at the start, filters as typed, completes with Enter and shows the arguments to fill", async () => {
    const { box, type, onSend } = setup();
    type("/");
    await waitFor(() => expect(options()).toEqual(["/simple-prompt", "/args-prompt city [state]"]));
    type("/args");
    await waitFor(() => expect(options()).toEqual(["/args-prompt city [state]"]));
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).not.toHaveBeenCalled();
    await waitFor(() => expect(box.value).toBe("/args-prompt "));
    expect(screen.queryByTestId("slash-menu")).toBeNull();
    const hint = screen.getByTestId("prompt-arguments").textContent ?? "";
    expect(hint).toContain("city — The city");
    expect(hint).toContain("[state]");
    type("/args-prompt Paris");
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("/args-prompt Paris", [], []);
  });

  it("sends typed text that only a description matches: Enter completes a command only while it is typed", async () => {
    const { box, type, onSend } = setup();
    type("/weather");
    await waitFor(() => expect(options()).toEqual(["/args-prompt city [state]"]));
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("/weather", [], []);
  });

  it("moves with the arrows, completes with Tab, and Esc closes it without sending", async () => {
    const { box, type, onSend } = setup();
    type("/");
    await waitFor(() => expect(options()).toHaveLength(2));
    fireEvent.keyDown(box, { key: "ArrowDown" });
    await waitFor(() => expect(screen.getAllByRole("option")[1]?.getAttribute("aria-selected")).toBe("true"));
    fireEvent.keyDown(box, { key: "ArrowUp" });
    fireEvent.keyDown(box, { key: "ArrowUp" });
    await waitFor(() => expect(screen.getAllByRole("option")[1]?.getAttribute("aria-selected")).toBe("true"));
    fireEvent.keyDown(box, { key: "Tab" });
    await waitFor(() => expect(box.value).toBe("/args-prompt "));
    type("/s");
    await waitFor(() => expect(screen.queryByTestId("slash-menu")).not.toBeNull());
    fireEvent.keyDown(box, { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("slash-menu")).toBeNull());
    expect(onSend).not.toHaveBeenCalled();
  });

  it("says when nothing matches and names servers that did not answer", async () => {
    const { type } = setup(offers(["slow"]));
    type("/zzz");
    await waitFor(() => expect(screen.getByTestId("slash-menu").textContent).toContain("No prompt matches “zzz”."));
    expect(screen.getByTestId("slash-menu").textContent).toContain("Not answering: slow");
  });

  it("opens the resource menu on @ starting a word and completes the reference", async () => {
    const { box, type, source } = setup();
    type("Summarise @feat");
    await waitFor(() => expect(options()).toEqual(["features.md"]));
    fireEvent.keyDown(box, { key: "Tab" });
    await waitFor(() => expect(box.value).toBe("Summarise @everything:demo://resource/static/document/features.md "));
    expect(source.prompts).not.toHaveBeenCalled();
  });

  it("is not opened by a slash inside text or an e-mail address", () => {
    expect(triggerOf("see /usr")).toBeNull();
    expect(triggerOf("mail me@example.com")).toBeNull();
    expect(triggerOf("/args-prompt Paris")).toBeNull();
    expect(triggerOf("@")).toEqual({ kind: "resource", query: "", start: 0 });
  });

  it("shows a sent prompt as typed with its expansion unfoldable", () => {
    render(<PromptExpansion typed={{ text: "/args-prompt Paris", server: "everything", prompt: "args-prompt" }} content="What's weather in Paris?" />);
    const expansion = screen.getByTestId("prompt-expansion");
    expect(expansion.querySelector("summary")?.textContent).toBe("Prompt args-prompt from everything: what the model read");
    expect(expansion.querySelector("pre")?.textContent).toBe("What's weather in Paris?");
  });
});
