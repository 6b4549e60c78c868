import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { SearchChats } from "../components/SearchChats";
import type { SearchHit } from "../generated/SearchHit";
import type { SearchPage } from "../generated/SearchPage";

function hit(chat_id: string, chat_title: string, message_id: string | null, snippet: [string, boolean][]): SearchHit {
  return { chat_id, chat_title, message_id, snippet: snippet.map(([text, matched]) => ({ text, matched })) };
}

const page = (data: SearchHit[], next_cursor: string | null = null): SearchPage => ({ data, next_cursor });

describe("searching chats (Ctrl+K)", () => {
  it("asks the engine as you type, marks the matched words, moves with the arrows and opens at the hit", async () => {
    const search = vi.fn(async (query: string) =>
      query === "csv"
        ? page([hit("a", "CSV export", null, [["CSV", true], [" export", false]]), hit("b", "Orders", "m7", [["…a ", false], ["CSV", true], [" of the orders…", false]])])
        : page([]),
    );
    const onOpen = vi.fn();
    render(<SearchChats search={search} onOpen={onOpen} onClose={() => {}} />);
    const input = screen.getByTestId("search-input");
    fireEvent.input(input, { target: { value: "csv" } });
    await waitFor(() => expect(screen.getAllByTestId("search-hit")).toHaveLength(2));
    const second = screen.getAllByTestId("search-hit")[1]!;
    expect(second.textContent).toContain("Orders");
    expect(second.textContent).toContain("…a CSV of the orders…");
    expect([...second.querySelectorAll("mark")].map((mark) => mark.textContent)).toEqual(["CSV"]);
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(onOpen).toHaveBeenCalledWith("b", "m7");
    expect(search).toHaveBeenCalledWith("csv", null);
  });

  it("shows stored text as text, never as markup", async () => {
    const evil = hit("a", "Chat", "m1", [["<img src=x onerror=alert(1)>", false], ["sales", true]]);
    render(<SearchChats search={async () => page([evil])} onOpen={() => {}} onClose={() => {}} />);
    fireEvent.input(screen.getByTestId("search-input"), { target: { value: "sales" } });
    await waitFor(() => screen.getByTestId("search-hit"));
    const shown = screen.getByTestId("search-hit");
    expect(shown.querySelector("img")).toBeNull();
    expect(shown.textContent).toContain("<img src=x onerror=alert(1)>");
  });

  it("loads the next page when the arrows reach the end", async () => {
    const search = vi.fn(async (_query: string, cursor: string | null) =>
      cursor === null ? page([hit("a", "One", "m1", [["x", true]]), hit("b", "Two", "m2", [["x", true]])], "h2") : page([hit("c", "Three", "m3", [["x", true]])]),
    );
    render(<SearchChats search={search} onOpen={() => {}} onClose={() => {}} />);
    const input = screen.getByTestId("search-input");
    fireEvent.input(input, { target: { value: "x" } });
    await waitFor(() => expect(screen.getAllByTestId("search-hit")).toHaveLength(2));
    fireEvent.keyDown(input, { key: "ArrowDown" });
    await waitFor(() => expect(screen.getAllByTestId("search-hit")).toHaveLength(3));
    expect(search).toHaveBeenLastCalledWith("x", "h2");
  });

  it("closes with Esc and says when nothing matches", async () => {
    const onClose = vi.fn();
    const search = vi.fn(async () => page([]));
    render(<SearchChats search={search} onOpen={() => {}} onClose={onClose} />);
    expect(search).not.toHaveBeenCalled();
    fireEvent.input(screen.getByTestId("search-input"), { target: { value: "nothing" } });
    await waitFor(() => screen.getByText("No chat matches."));
    fireEvent.keyDown(screen.getByTestId("search-input"), { key: "Escape" });
    expect(onClose).toHaveBeenCalled();
  });
});

describe("search snippets as plain text (issue 48)", () => {
  it("leave out Markdown's fences, emphasis, links and headings, and keep the matched words marked", async () => {
    const markdown = hit("a", "Report", "m1", [
      ["## Result\n\n```python\nprint(", false],
      ["total", true],
      [")\n```\nSee **the [", false],
      ["total", true],
      ["](https://x.test/t)** in `report.py` and _this_ snake_case…", false],
    ]);
    render(<SearchChats search={async () => page([markdown])} onOpen={() => {}} onClose={() => {}} />);
    fireEvent.input(screen.getByTestId("search-input"), { target: { value: "total" } });
    await waitFor(() => screen.getByTestId("search-hit"));
    const excerpt = screen.getByTestId("search-hit").querySelector(".search-excerpt")!;
    expect(excerpt.textContent).toBe("Result print(total) See the total in report.py and this snake_case…");
    expect([...excerpt.querySelectorAll("mark")].map((mark) => mark.textContent)).toEqual(["total", "total"]);
  });
});
