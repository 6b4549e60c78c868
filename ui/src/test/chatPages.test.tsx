import { fireEvent, render } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { CHAT_ROW_PX, Sidebar } from "../components/Sidebar";
import { visibleRange } from "../components/VirtualList";
import type { Chat } from "../generated/Chat";
import { sharedTitles, withFirstPage, withNextPage, type LoadedChats } from "../lib/chatList";
import { formatTime } from "../lib/i18n";
import { initialState, withOlder } from "../lib/chatState";
import { assistant, chat as fixtureChat, user, view } from "./fixtures";

const chat = (n: number): Chat => ({ ...fixtureChat, id: `c${n}`, title: `Chat ${n}` });
const chats = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => chat(to - 1 - i));

describe("the sidebar's chats, a page at a time", () => {
  it("puts only the rows in view in the page, and asks for the next page near the end", () => {
    const all = chats(0, 10_000);
    const onMore = vi.fn();
    const noop = () => {};
    const { container } = render(<Sidebar chats={all} selectedId={null} onSelect={noop} onNew={noop} onRename={noop} onDelete={noop} onSettings={noop} onMore={onMore} />);
    const rows = () => [...container.querySelectorAll<HTMLElement>(".chat-item")];
    expect(rows().length).toBeLessThan(50);
    expect(rows()[0]!.textContent).toContain("Chat 9999");
    const scroller = container.querySelector<HTMLElement>(".virtual-list")!;
    const inner = container.querySelector<HTMLElement>(".virtual-rows")!;
    expect(inner.style.height).toBe(`${10_000 * CHAT_ROW_PX}px`);
    expect(onMore).not.toHaveBeenCalled();
    scroller.scrollTop = 5_000 * CHAT_ROW_PX;
    fireEvent.scroll(scroller);
    expect(rows().length).toBeLessThan(50);
    expect(rows().some((row) => row.textContent?.includes("Chat 4999"))).toBe(true);
    expect(inner.style.paddingTop).not.toBe("0px");
    scroller.scrollTop = 9_990 * CHAT_ROW_PX;
    fireEvent.scroll(scroller);
    expect(onMore).toHaveBeenCalled();
  });

  it("draws the rows in view and a few either side", () => {
    expect(visibleRange(10_000, 34, 0, 340, 8)).toEqual([0, 19]);
    expect(visibleRange(10_000, 34, 3400, 340, 8)).toEqual([92, 119]);
    expect(visibleRange(5, 34, 0, 340, 8)).toEqual([0, 5]);
  });

  it("joins a fresh first page to the pages loaded after it, each chat once", () => {
    let loaded: LoadedChats = { chats: chats(90, 100), next: "c5a" };
    loaded = withNextPage(loaded, { data: chats(80, 90), next_cursor: "c50" });
    expect(loaded.chats.map((c) => c.id)).toEqual(chats(80, 100).map((c) => c.id));
    // Two chats created: the first page now ends two chats earlier; nothing is lost or doubled.
    const fresh = withFirstPage(loaded, { data: [chat(101), chat(100), ...chats(92, 100)], next_cursor: "c5c" });
    expect(fresh.chats.map((c) => c.id)).toEqual([chat(101), chat(100), ...chats(80, 100)].map((c) => c.id));
    expect(fresh.next).toBe("c50");
    // A first page that is the whole list replaces it.
    expect(withFirstPage(loaded, { data: [chat(1)], next_cursor: null })).toEqual({ chats: [chat(1)], next: null });
  });
});

describe("a long chat's older messages", () => {
  it("go before those shown, once, and the view pages back from the new cursor", () => {
    const all = [user("m1", "one"), assistant("m2", "two"), user("m3", "three"), assistant("m4", "four")];
    const state = initialState({ ...view(all.slice(2)), messages_cursor: "m3" }, [], []);
    const older = withOlder(state, { data: all.slice(0, 3), next_cursor: "m1" });
    expect(older.view.messages.map((m) => m.id)).toEqual(["m1", "m2", "m3", "m4"]);
    expect(older.view.messages_cursor).toBe("m1");
    expect(withOlder(older, { data: [], next_cursor: null }).view.messages_cursor).toBeUndefined();
  });
});

describe("chats of the same title (issue 48)", () => {
  it("each show when they were made, as people read times; other chats show none", () => {
    const noop = () => {};
    const made = ["2026-12-04T18:02:51.733Z", "2026-12-05T09:30:00Z"];
    const list: Chat[] = [
      { ...fixtureChat, id: "a", title: "Fix the tests", created_at: made[0]! },
      { ...fixtureChat, id: "b", title: "Fix the tests", created_at: made[1]! },
      { ...fixtureChat, id: "c", title: "CSV export", created_at: made[1]! },
    ];
    const { container } = render(<Sidebar chats={list} selectedId={null} onSelect={noop} onNew={noop} onRename={noop} onDelete={noop} onSettings={noop} />);
    const row = (id: string) => container.querySelector<HTMLElement>(`[data-chat-id="${id}"]`)!;
    expect(row("a").querySelector('[data-testid="chat-date"]')?.textContent).toBe(` · ${formatTime(made[0]!)}`);
    expect(row("b").querySelector('[data-testid="chat-date"]')?.textContent).toBe(` · ${formatTime(made[1]!)}`);
    expect(row("a").textContent).not.toContain("2026-12-04T");
    expect(row("c").querySelector('[data-testid="chat-date"]')).toBeNull();
    expect(sharedTitles(list)).toEqual(new Set(["Fix the tests"]));
  });
});
