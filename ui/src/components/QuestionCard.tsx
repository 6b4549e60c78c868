// The planner's question card: each question with its ready answers as buttons and "Your own
// answer", which opens a text field. Only the latest card is live; earlier ones are history.
// Keys 1–3 pick the answers of the first unanswered question of the live card.
import { useEffect, useRef, useState } from "preact/hooks";

import type { Question } from "../generated/Question";
import { t } from "../lib/i18n";

export interface QuestionCardProps {
  questions: Question[];
  /** The latest card, waiting for answers. */
  active: boolean;
  /** Plan mode is under way: "Cancel plan" applies. */
  planRunning: boolean;
  onAnswer: (questionId: string, answer: string) => void;
  onCancel: () => void;
}

function typingIn(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

export function QuestionCard({ questions, active, planRunning, onAnswer, onCancel }: QuestionCardProps) {
  useEffect(() => {
    if (!active) return;
    const pick = (event: KeyboardEvent) => {
      if (typingIn(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
      const index = ["1", "2", "3"].indexOf(event.key);
      const question = questions.find((q) => q.answer === null) ?? null;
      const option = question?.options[index];
      if (index === -1 || !question || option === undefined) return;
      event.preventDefault();
      onAnswer(question.id, option);
    };
    document.addEventListener("keydown", pick);
    return () => document.removeEventListener("keydown", pick);
  }, [active, questions, onAnswer]);

  return (
    <section class={`card question-card${active ? " active" : " history"}`} data-testid="question-card" aria-label={t("questions.label")}>
      <header class="card-title">{active ? t("questions.asks") : t("questions.asked")}</header>
      {questions.map((question, index) => (
        <QuestionItem key={question.id} number={index + 1} question={question} active={active} onAnswer={onAnswer} />
      ))}
      <footer class="card-actions">
        <button type="button" class="secondary" data-testid="cancel-plan" disabled={!planRunning} onClick={onCancel}>
          {t("plan.cancel")}
        </button>
      </footer>
    </section>
  );
}

function QuestionItem(props: { number: number; question: Question; active: boolean; onAnswer: (id: string, answer: string) => void }) {
  const { number, question, active, onAnswer } = props;
  const [ownOpen, setOwnOpen] = useState(false);
  const [own, setOwn] = useState("");
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ownOpen) input.current?.focus();
  }, [ownOpen]);
  const ready = own.trim() !== "";
  const chosenOwn = question.answer !== null && !question.options.includes(question.answer);
  const submitOwn = () => {
    if (!ready) return;
    onAnswer(question.id, own.trim());
    setOwnOpen(false);
  };
  return (
    <div class="question" data-question-id={question.id}>
      <p class="question-text">
        <span class="question-number">{number}.</span> {question.question}
      </p>
      <div class="options">
        {question.options.map((option, index) => (
          <button
            type="button"
            key={option}
            class={`option${question.answer === option ? " chosen" : ""}`}
            disabled={!active}
            aria-pressed={question.answer === option}
            onClick={() => onAnswer(question.id, option)}
          >
            <kbd>{index + 1}</kbd> {option}
          </button>
        ))}
        <button type="button" class={`option own${chosenOwn ? " chosen" : ""}`} disabled={!active} aria-expanded={ownOpen} onClick={() => setOwnOpen(!ownOpen)}>
          {t("questions.own")}
        </button>
      </div>
      {chosenOwn && <p class="own-answer">{t("questions.yourAnswer", { answer: question.answer ?? "" })}</p>}
      {active && ownOpen && (
        <form
          class="own-form"
          onSubmit={(event) => {
            event.preventDefault();
            submitOwn();
          }}
        >
          <input
            type="text"
            class="own-input"
            aria-label={t("questions.ownLabel", { number })}
            placeholder={t("questions.ownPlaceholder")}
            value={own}
            onInput={(event) => setOwn(event.currentTarget.value)}
            ref={input}
          />
          <button type="submit" class="primary" disabled={!ready}>
            {t("questions.answer")}
          </button>
        </form>
      )}
    </div>
  );
}
