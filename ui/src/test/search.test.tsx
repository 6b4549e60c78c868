import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { SearchChats } from "../components/SearchChats";
import type { ChatHit } from "../generated/ChatHit";

function hit(id: string, title: string, excerpt: string | null): ChatHit {
  const chat = { id, title, workspace: null, scope: [], plan_mode: true, auto_approve: false, save_plans: false, created_at: "t", updated_at: "t" };
  return { chat, excerpt };
}

describe("searching chats (Ctrl+K)", () => {
  it("asks the engine as you type, shows excerpts, moves with the arrows and opens with Enter", async () => {
    const search = vi.fn(async (query: string) => (query === "csv" ? [hit("a", "Export", "…a CSV export of the orders…"), hit("b", "CSV bug", null)] : []));
    const onOpen = vi.fn();
    render(<SearchChats search={search} onOpen={onOpen} onClose={() => {}} />);
    const input = screen.getByTestId("search-input");
    fireEvent.input(input, { target: { value: "csv" } });
    await waitFor(() => expect(screen.getAllByTestId("search-hit")).toHaveLength(2));
    expect(screen.getAllByTestId("search-hit")[0]!.textContent).toContain("a CSV export of the orders");
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(onOpen).toHaveBeenCalledWith("b");
    expect(search).toHaveBeenCalledWith("csv");
  });

  it("closes with Esc and says when nothing matches", async () => {
    const onClose = vi.fn();
    render(<SearchChats search={async () => []} onOpen={() => {}} onClose={onClose} />);
    await waitFor(() => screen.getByText("No chat matches."));
    fireEvent.keyDown(screen.getByTestId("search-input"), { key: "Escape" });
    expect(onClose).toHaveBeenCalled();
  });
});
