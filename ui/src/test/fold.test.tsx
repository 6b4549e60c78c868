import { act, fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { FoldPanel, FoldToggle, useFolds } from "../components/Fold";

function Window() {
  const folds = useFolds();
  return (
    <div>
      <FoldToggle name="chats" folds={folds} />
      <FoldToggle name="tasks" folds={folds} detail="1 of 3 done" />
      <FoldPanel name="chats" folds={folds}>
        <nav aria-label="Chats">
          <input aria-label="Chat title" />
        </nav>
      </FoldPanel>
      <FoldPanel name="tasks" folds={folds}>
        <aside aria-label="Task list" />
      </FoldPanel>
    </div>
  );
}

const tick = () => act(() => new Promise((done) => setTimeout(done, 0)));

describe("folded panels", () => {
  it("open from their labelled toggles, one at a time, and say so", () => {
    render(<Window />);
    const chats = screen.getByTestId("toggle-chats");
    const tasks = screen.getByTestId("toggle-tasks");
    expect(chats.textContent).toContain("Chats");
    expect(tasks.textContent).toContain("Plan · 1 of 3 done");
    expect(chats.getAttribute("aria-controls")).toBe("fold-chats");
    expect(chats.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(chats);
    expect(chats.getAttribute("aria-expanded")).toBe("true");
    expect(document.getElementById("fold-chats")!.classList.contains("open")).toBe(true);
    expect(screen.getByTestId("fold-backdrop-chats")).toBeTruthy();
    fireEvent.click(tasks);
    expect(chats.getAttribute("aria-expanded")).toBe("false");
    expect(tasks.getAttribute("aria-expanded")).toBe("true");
    fireEvent.click(tasks);
    expect(tasks.getAttribute("aria-expanded")).toBe("false");
  });

  it("move the focus in on opening; Escape, Close or the backdrop close them and give it back", async () => {
    render(<Window />);
    const chats = screen.getByTestId("toggle-chats");
    fireEvent.click(chats);
    await tick();
    expect(document.activeElement).toBe(screen.getByTestId("close-chats"));
    expect(screen.getByTestId("close-chats").getAttribute("aria-label")).toBe("Close the chat list");

    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    await tick();
    expect(chats.getAttribute("aria-expanded")).toBe("false");
    expect(document.activeElement).toBe(chats);

    fireEvent.click(chats);
    fireEvent.click(screen.getByTestId("fold-backdrop-chats"));
    await tick();
    expect(chats.getAttribute("aria-expanded")).toBe("false");
    expect(document.activeElement).toBe(chats);

    const tasks = screen.getByTestId("toggle-tasks");
    fireEvent.click(tasks);
    fireEvent.click(screen.getByTestId("close-tasks"));
    await tick();
    expect(tasks.getAttribute("aria-expanded")).toBe("false");
    expect(document.activeElement).toBe(tasks);
  });

  it("leave Escape in a field to the field", async () => {
    render(<Window />);
    fireEvent.click(screen.getByTestId("toggle-chats"));
    fireEvent.keyDown(screen.getByLabelText("Chat title"), { key: "Escape" });
    await tick();
    expect(screen.getByTestId("toggle-chats").getAttribute("aria-expanded")).toBe("true");
  });
});
