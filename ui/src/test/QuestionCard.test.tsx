import { fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { QuestionCard } from "../components/QuestionCard";
import { questions } from "./fixtures";

function setup(active = true, planRunning = true) {
  const onAnswer = vi.fn();
  const onCancel = vi.fn();
  render(<QuestionCard questions={questions()} active={active} planRunning={planRunning} onAnswer={onAnswer} onCancel={onCancel} />);
  return { onAnswer, onCancel };
}

describe("QuestionCard", () => {
  it("offers each question's three answers and a fourth, own answer", () => {
    const { onAnswer } = setup();
    expect(screen.getAllByRole("button", { name: "Your own answer" })).toHaveLength(2);
    fireEvent.click(screen.getByRole("button", { name: /JSON/ }));
    expect(onAnswer).toHaveBeenCalledWith("q1", "JSON");
  });

  it("never submits an empty own answer and sends a typed one trimmed", () => {
    const { onAnswer } = setup();
    fireEvent.click(screen.getAllByRole("button", { name: "Your own answer" })[1]!);
    const field = screen.getByLabelText("Your own answer to question 2");
    const submit = screen.getByRole("button", { name: "Answer" });
    expect(submit).toHaveProperty("disabled", true);
    fireEvent.input(field, { target: { value: "   " } });
    expect(submit).toHaveProperty("disabled", true);
    fireEvent.submit(field.closest("form")!);
    expect(onAnswer).not.toHaveBeenCalled();
    fireEvent.input(field, { target: { value: "  Only 2024, no refunds " } });
    fireEvent.click(submit);
    expect(onAnswer).toHaveBeenCalledWith("q2", "Only 2024, no refunds");
  });

  it("picks answers with keys 1–3 for the first unanswered question, not while typing", () => {
    const { onAnswer } = setup();
    fireEvent.keyDown(document.body, { key: "3" });
    expect(onAnswer).toHaveBeenCalledWith("q1", "Excel");
    fireEvent.click(screen.getAllByRole("button", { name: "Your own answer" })[0]!);
    fireEvent.keyDown(screen.getByLabelText("Your own answer to question 1"), { key: "2" });
    expect(onAnswer).toHaveBeenCalledTimes(1);
  });

  it("is read-only history when not the latest card, with Cancel plan while planning", () => {
    const { onAnswer, onCancel } = setup(false, true);
    for (const button of screen.getAllByRole("button").filter((b) => b.textContent !== "Cancel plan")) {
      expect(button).toHaveProperty("disabled", true);
    }
    fireEvent.keyDown(document.body, { key: "1" });
    expect(onAnswer).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Cancel plan" }));
    expect(onCancel).toHaveBeenCalled();
  });

  it("shows a given own answer", () => {
    const answered = questions().map((q) => (q.id === "q2" ? { ...q, answer: "Only 2024" } : q));
    render(<QuestionCard questions={answered} active planRunning onAnswer={() => {}} onCancel={() => {}} />);
    expect(screen.getByText("Your answer: Only 2024")).toBeTruthy();
  });
});
