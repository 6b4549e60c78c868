import { afterEach, describe, expect, it, vi } from "vitest";

import { runWhenIdle, warmUpLayout } from "../lib/layoutWarmUp";
import { renderMarkdown, warmUpMarkdown } from "../lib/markdown";

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** Records a copy of each element laid out (getBoundingClientRect) while `run` runs. */
function laidOut(run: () => void): HTMLElement[] {
  const seen: HTMLElement[] = [];
  vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(function (this: HTMLElement) {
    seen.push(this.cloneNode(true) as HTMLElement);
    return { height: 321 } as DOMRect;
  });
  run();
  return seen;
}

describe("warmUpLayout", () => {
  it("lays out hidden markdown that stays sanitised, then removes it", () => {
    const parent = document.createElement("div");
    document.body.append(parent);
    let height = 0;
    const [box] = laidOut(() => {
      height = warmUpLayout("markdown", renderMarkdown("**bold** `code`\n\n<img src=x onerror=alert(1)>\n\n<script>alert(1)</script>"), parent);
    });
    expect(height).toBe(321);
    expect(parent.childNodes).toHaveLength(0);
    expect(box?.getAttribute("aria-hidden")).toBe("true");
    expect([box?.style.visibility, box?.style.position]).toEqual(["hidden", "absolute"]);
    expect(box?.querySelector(".message.assistant .markdown strong")?.textContent).toBe("bold");
    expect(box?.querySelector(".markdown code")?.textContent).toBe("code");
    expect(box?.querySelector("script")).toBeNull();
    expect(box?.querySelector("img")?.getAttribute("onerror")).toBeNull();
    parent.remove();
  });

  it("has a piece for each part of a chat besides markdown", () => {
    const boxes = laidOut(() => {
      for (const piece of ["user", "status", "tool"] as const) warmUpLayout(piece);
    });
    expect(boxes.map((box) => box.firstElementChild?.className)).toEqual(["message user", "message assistant", "tool done"]);
    expect(boxes[0]?.querySelector(".user-text")?.textContent).toContain("…");
    expect(boxes[1]?.querySelector(".stream-tail")).not.toBeNull();
    expect(boxes[1]?.querySelector(".status-line .spinner")).not.toBeNull();
    expect(boxes[2]?.querySelector("summary .tool-sentence")).not.toBeNull();
  });

  it("is removed even when layout throws", () => {
    vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(() => {
      throw new Error("no layout");
    });
    const before = document.body.childNodes.length;
    expect(() => warmUpLayout("markdown", "<p>x</p>")).toThrow("no layout");
    expect(document.body.childNodes.length).toBe(before);
  });
});

describe("warm-up scheduling", () => {
  it("runs one step per idle moment, and goes on after a step that throws", () => {
    vi.useFakeTimers();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const ran: number[] = [];
    runWhenIdle([() => ran.push(1), () => {
      ran.push(2);
      throw new Error("step failed");
    }, () => ran.push(3)]);
    expect(ran).toEqual([]);
    vi.advanceTimersToNextTimer();
    expect(ran).toEqual([1]);
    vi.advanceTimersToNextTimer();
    expect(ran).toEqual([1, 2]);
    expect(warn).toHaveBeenCalledWith("warm-up step failed", expect.any(Error));
    vi.advanceTimersToNextTimer();
    expect(ran).toEqual([1, 2, 3]);
  });

  it("warmUpMarkdown parses and lays out each snippet apart, then the chat's chrome", () => {
    vi.useFakeTimers();
    const before = document.body.childNodes.length;
    const boxes = laidOut(() => {
      warmUpMarkdown();
      vi.runAllTimers();
    });
    const markdown = boxes.filter((box) => box.querySelector(".markdown"));
    expect(markdown.length).toBeGreaterThanOrEqual(5);
    expect(markdown.some((box) => box.querySelector("pre code.hljs"))).toBe(true);
    expect(markdown.some((box) => box.querySelector("strong"))).toBe(true);
    expect(boxes.length).toBe(markdown.length + 3);
    expect(document.body.childNodes.length).toBe(before);
  });
});
