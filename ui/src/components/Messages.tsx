// The conversation: user messages as text, assistant messages as sanitised markdown, tool
// calls as collapsible blocks (code-sandbox runs as terminal blocks), question and plan cards,
// Continue and restore markers, the executor's text streaming in, and last the MCP servers'
// open questions to the user.
import { useLayoutEffect, useRef } from "preact/hooks";

import type { CommentDraft } from "../generated/CommentDraft";
import type { Message } from "../generated/Message";
import type { PlanDocument } from "../generated/PlanDocument";
import type { PlanEdit } from "../generated/PlanEdit";
import type { ServerAnswer } from "../generated/ServerAnswer";
import { activeCard, planInProgress, type ChatState } from "../lib/chatState";
import { summaryShownInChat } from "../lib/completion";
import { Markdown, StreamingMarkdown, wasStreamed } from "./Markdown";
import { planAnswer } from "../lib/planComments";
import { sandboxRunTool } from "../lib/sandbox";
import { MessageFiles } from "./Attachments";
import { Announcer } from "./Announcer";
import { ChangeCard } from "./ChangeCard";
import { CompletionCard } from "./CompletionCard";
import { ElicitationCard } from "./ElicitationCard";
import { PlanCard } from "./PlanCard";
import { ToolGroup, type GroupedCall } from "./ToolGroup";
import { LiveToolBlock, StoredTool } from "./ToolBlock";
import type { SentenceContext } from "../lib/toolSentence";
import { QuestionCard } from "./QuestionCard";
import { ForkButton, ForkNotice } from "./ForkParts";
import { ModelDivider } from "./ModelDivider";
import { NoticeCard, type NoticeCardProps } from "./NoticeCard";
import { PromptExpansion } from "./OfferMenu";
import { askedBefore, openTasks, reopenedByRestore, userSpokeAfter } from "../lib/notices";
import { RestoreContinue, RestoreEntry } from "./RestoreEntry";
import { StopCard, stopReasonShort } from "./StopCard";
import { t } from "../lib/i18n";

export interface CardActions {
  onAnswer: (questionId: string, answer: string) => void;
  onAnswerChange: (changeId: string, approve: boolean) => void;
  onApprove: (unconfined: boolean) => void;
  onRevise: (feedback: string | null, comments: CommentDraft[]) => void;
  onCancel: () => void;
  onEdit: (edit: PlanEdit) => Promise<void>;
  loadRevisions?: () => Promise<PlanDocument[]>;
  /** Answers an MCP server's question; resolves with the error to show, if refused. */
  onAnswerElicitation: (id: string, answer: ServerAnswer) => Promise<string | null>;
  /** Opens a URL question's page in the browser; resolves with the error, if any. */
  onOpenElicitationUrl: (id: string) => Promise<string | null>;
  /** The stop card's Continue; resolves with the error to show, if refused. */
  onContinue: () => Promise<string | null>;
  /** Sends the user's message `messageId` again as it was (a notice's Plan again / Try again). */
  onResend?: (messageId: string, content: string) => Promise<string | null>;
  /** Opens Settings (a notice about the provider). */
  onOpenSettings?: () => void;
  /** Opens the chat's plan folder (where FINALIZATION.json is) in the file manager. */
  onOpenPlanFolder?: () => void;
  /** Opens the diff of the whole plan's work (from its approval's checkpoint); none without one. */
  onPlanDiff?: () => void;
  /** An unverified plan's checks run again; resolves with the error to show, if refused. */
  onVerifyPlan?: () => Promise<string | null>;
  /** The user accepts an unverified plan as is; resolves with the error, if refused. */
  onAcceptPlan?: () => Promise<string | null>;
  /** "Fork from here": a new chat with the conversation up to the message (DESIGN §15). */
  onFork?: (messageId: string) => void;
}

/** Editing and re-sending the user's messages (issue 18). */
export interface EditActions {
  /** The message being edited, if any. */
  editing: string | null;
  onEditStart: (messageId: string) => void;
  onEditCancel: () => void;
  /** Re-sends `text` as the message: later messages go; the first one plans again. */
  onEditSend: (messageId: string, text: string) => void;
  onShowTasks?: () => void;
}

type ToolMessage = Extract<Message, { role: "tool" }>;
type NoticeMessage = NoticeCardProps["message"];

/** A long chat's pages (issue 33): older messages on scroll, and the message a search hit opened. */
export interface MessagePaging {
  /** Loads the page before the first message shown (the list scrolled near its top). */
  onNearTop: () => void;
  /** The message to scroll to and mark once it is shown. */
  target: string | null;
}

export function Messages({ state, actions, edits, paging }: { state: ChatState; actions: CardActions; edits?: EditActions; paging?: MessagePaging }) {
  const { view } = state;
  const list = useRef<HTMLDivElement>(null);
  // Follows new output while the view is at the bottom; a user who scrolled up stays put.
  const pinned = useRef(true);
  useLayoutEffect(() => {
    if (pinned.current && list.current) list.current.scrollTop = list.current.scrollHeight;
  });
  useOlderPages(list, state.view.messages[0]?.id, pinned, paging?.target ?? null);
  const live = activeCard(view);
  const planRunning = planInProgress(view.state.phase);
  const results = toolResults(view.messages);
  const running = view.state.phase === "planning" || view.state.phase === "executing";
  const firstUser = view.messages.find(typedByUser);
  // After a cancel the chat is as right after its first message: it can be planned again.
  const context: SentenceContext = { workspace: view.workspace, taskTitle: (id) => state.tasks.find((task) => task.id === id)?.title };
  const planAgain = view.plan_mode && view.state.phase === "idle" && view.messages.every((m) => m.role === "user") ? firstUser?.id : undefined;
  return (
    <div
      class="messages"
      data-testid="messages"
      ref={list}
      onScroll={(event) => {
        const element = event.currentTarget;
        pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
        if (element.scrollTop < 200 && state.view.messages_cursor) paging?.onNearTop();
      }}
    >
      <Announcer state={state} />
      {[
        isEmpty(state) && <EmptyChat key="empty" planMode={view.plan_mode} />,
        ...grouped(interleave(view.messages, cardsOf(state, actions), cardMayGoBefore)).map((item) => {
          if ("group" in item) {
            return (
              <div class="message assistant" key={`group-${item.group[0]!.id}`}>
                <ToolGroup
                  calls={item.group.flatMap((message) => groupCalls(message, results))}
                  onShowTasks={edits?.onShowTasks}
                  context={context}
                  renderCall={(call, index) => <StoredTool key={index} call={call.call} result={results.get(resultKey(call.owner ?? "", call.call.id))} context={context} />}
                />
              </div>
            );
          }
          if (!("role" in item)) return item.node;
          const message = item;
          if (message.role === "tool") return null;
          if (message.role === "user") {
            if (message.restored) {
              const before = message.restored.before_task;
              return <RestoreEntry key={message.id} message={message} taskTitle={state.tasks.find((task) => task.id === before)?.title} />;
            }
            return <UserMessage key={message.id} message={message} edits={edits} running={running} planAgain={planAgain === message.id} onFork={actions.onFork} />;
          }
          if (message.role === "compaction") return <CompactionDivider key={message.id} message={message} />;
          if (view.forked_from && message.id === view.forked_from.notice_id) return <ForkNotice key={message.id} from={view.forked_from} messageId={message.id} />;
          if (message.notice?.kind === "model_switched") return <ModelDivider key={message.id} messageId={message.id} notice={message.notice} />;
          if (message.notice) {
            const asked = askedBefore(view.messages, message.id);
            return (
              <NoticeCard
                key={message.id}
                message={message as NoticeMessage}
                actionable={!running && asked !== null && actions.onResend !== undefined && !userSpokeAfter(view.messages, message.id)}
                onRetry={() => (asked && actions.onResend ? actions.onResend(asked.id, asked.content) : Promise.resolve(null))}
                onOpenSettings={() => actions.onOpenSettings?.()}
              />
            );
          }
          if (message.questions) {
            const active = live?.id === message.id;
            const questions = active && view.state.plan_pending ? view.state.plan_pending.questions : message.questions;
            return <QuestionCard key={message.id} questions={questions} active={active} planRunning={planRunning} onAnswer={actions.onAnswer} onCancel={actions.onCancel} />;
          }
          if (message.plan) {
            const active = live?.id === message.id;
            const plan = active && view.state.plan ? view.state.plan : message.plan;
            return (
              <PlanCard
                key={message.id}
                chatId={view.id}
                plan={plan}
                active={active}
                planRunning={planRunning}
                unconfined={view.state.unconfined}
                executorCallsTools={view.state.executor_calls_tools}
                scope={view.scope}
                {...actions}
              />
            );
          }
          // A streamed message keeps its streamed rendering (same element, same key): storing
          // it re-parses only its last paragraph.
          return (
            <div class="message assistant" key={message.id} data-message-id={message.id}>
              {message.content.trim() !== "" &&
                (wasStreamed(message.id) ? <StreamingMarkdown id={message.id} text={message.content} done /> : <Markdown text={message.content} />)}
              {(message.tool_calls ?? []).map((call) => (
                <StoredTool key={call.id} call={call} result={results.get(resultKey(message.id, call.id))} context={context} />
              ))}
              {actions.onFork && <ForkButton messageId={message.id} onFork={actions.onFork} />}
            </div>
          );
        }),
        ...state.streaming.map((entry) => (
          <div class="message assistant streaming" key={entry.id} data-testid="streaming">
            <StreamingMarkdown id={entry.id} text={entry.text} done={false} />
            {(state.tools[entry.id] ?? []).map((tool, index) => (
              <LiveToolBlock key={index} tool={tool} context={context} />
            ))}
          </div>
        )),
        ...Object.entries(state.tools)
          .filter(([id]) => !state.streaming.some((entry) => entry.id === id) && !view.messages.some((message) => message.id === id))
          .map(([id, tools]) => (
            <div class="message assistant" key={id}>
              {tools.map((tool, index) => (
                <LiveToolBlock key={index} tool={tool} context={context} />
              ))}
            </div>
          )),
        ...state.elicitations.map((elicitation) => (
          <ElicitationCard
            key={`elicitation-${elicitation.id}`}
            elicitation={elicitation}
            onAnswer={actions.onAnswerElicitation}
            onOpenUrl={actions.onOpenElicitationUrl}
          />
        )),
        // Keyed by when it stopped: a later stop is a new card (its Continue not in flight).
        view.state.stopped && !running && <StopCard key={`stopped-${view.state.stopped.at}`} stopped={view.state.stopped} onContinue={actions.onContinue} />,
        !view.state.stopped && !running && reopenedByRestore(view.messages, state.tasks) && (
          <RestoreContinue key="restore-continue" open={openTasks(state.tasks)} onContinue={actions.onContinue} />
        ),
      ]}
    </div>
  );
}

/** A chat with nothing in it yet: no message, nothing streaming or asked. */
export function isEmpty(state: ChatState): boolean {
  const { view } = state;
  return view.messages.length === 0 && !view.messages_cursor && state.streaming.length === 0 && Object.keys(state.tools).length === 0 && state.elicitations.length === 0 && view.state.phase === "idle";
}

/** An empty chat says in two lines how a chat goes: question → plan → approve → work. */
function EmptyChat({ planMode }: { planMode: boolean }) {
  return (
    <section class="empty-chat" data-testid="empty-chat" aria-label={t("messages.emptyLabel")}>
      <p>{planMode ? t("messages.emptyPlan") : t("messages.emptyNoPlan")}</p>
      <p class="muted">{planMode ? t("messages.emptyApprove") : t("messages.emptyNoPlanHint")}</p>
    </section>
  );
}

interface TimedCard {
  at: string;
  node: preact.JSX.Element;
}

/** The change requests and the completion record, each placed at its time. */
function cardsOf(state: ChatState, actions: CardActions): TimedCard[] {
  const { changes, completion, phase } = state.view.state;
  const busy = phase === "executing" || phase === "planning";
  const cards: TimedCard[] = changes.map((change) => ({
    at: change.requested_at,
    node: <ChangeCard key={`change-${change.id}`} change={change} busy={busy} onAnswer={actions.onAnswerChange} />,
  }));
  if (completion) {
    const card = (
      <CompletionCard
        key="completion"
        completion={completion}
        busy={busy}
        verdictsHeard={state.completionsHeard ?? 0}
        usage={state.view.usage}
        showSummary={!summaryShownInChat(completion.summary, state.view.messages)}
        onOpenFolder={actions.onOpenPlanFolder}
        onPlanDiff={actions.onPlanDiff}
        onVerify={actions.onVerifyPlan}
        onAccept={actions.onAcceptPlan}
        onContinue={actions.onContinue}
      />
    );
    cards.push({ at: completion.finished_at, node: card });
  }
  return cards.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** Messages in order with each card after the messages stored before it (RFC 3339 times in
 *  one format compare as text), but only where `breaksBefore` allows: a card made while a
 *  round of tool calls ran (the completion, made by the last `turn_plan done`) is stamped
 *  within milliseconds of that round's messages, and must not cut it from its run. */
export function interleave<T extends { created_at: string }, C extends { at: string }>(
  messages: T[],
  cards: C[],
  breaksBefore: (message: T, previous: T | null) => boolean = () => true,
): (T | C)[] {
  const out: (T | C)[] = [];
  let next = 0;
  let previous: T | null = null;
  for (const message of messages) {
    if (breaksBefore(message, previous)) {
      while (next < cards.length && cards[next]!.at < message.created_at) out.push(cards[next++]!);
    }
    out.push(message);
    previous = message;
  }
  return out.concat(cards.slice(next));
}

/** Where a card may go: not before a tool result (it belongs to its call) nor inside a run
 *  of tool-call-only messages (shown as one group). */
export function cardMayGoBefore(message: Message, previous: Message | null): boolean {
  if (message.role === "tool") return false;
  const inRun = previous !== null && (previous.role === "tool" || groupable(previous));
  return !(inRun && groupable(message));
}

/** A tool result is its call's when it follows that call's assistant message: call ids are
 *  unique only within one message (some providers and the scripted one reuse them). */
export function toolResults(messages: Message[]): Map<string, ToolMessage> {
  const results = new Map<string, ToolMessage>();
  let owner: string | null = null;
  for (const message of messages) {
    if (message.role === "tool") {
      if (owner !== null) results.set(resultKey(owner, message.tool_call_id), message);
    } else {
      owner = message.role === "assistant" ? message.id : null;
    }
  }
  return results;
}

function resultKey(messageId: string, callId: string): string {
  return `${messageId}\u0000${callId}`;
}

type AssistantMessage = Extract<Message, { role: "assistant" }>;
type Item<C> = Message | C | { group: AssistantMessage[] };

/** Whether a stored assistant message is only tool calls (no text, no card, no terminal
 *  block): such messages in a row are shown as one group. */
function groupable(message: Message): message is AssistantMessage {
  return (
    message.role === "assistant" &&
    !message.questions &&
    !message.plan &&
    message.content.trim() === "" &&
    (message.tool_calls ?? []).length > 0 &&
    (message.tool_calls ?? []).every((call) => sandboxRunTool(call.name) === null)
  );
}

/** Runs of two or more tool-call-only messages become one group (tool results, shown with
 *  their calls, do not break a run; a card or any text does). */
export function grouped<C>(items: (Message | C)[]): Item<C>[] {
  const out: Item<C>[] = [];
  let run: AssistantMessage[] = [];
  const flush = () => {
    if (run.length >= 2) out.push({ group: run });
    else out.push(...run);
    run = [];
  };
  for (const item of items) {
    if (typeof item === "object" && item !== null && "role" in item) {
      const message = item as Message;
      if (groupable(message)) {
        run.push(message);
        continue;
      }
      if (message.role === "tool") {
        out.push(message);
        continue;
      }
    }
    flush();
    out.push(item);
  }
  flush();
  return out;
}

function groupCalls(message: AssistantMessage, results: Map<string, ToolMessage>): GroupedCall[] {
  return (message.tool_calls ?? []).map((call) => {
    const result = results.get(resultKey(message.id, call.id));
    return {
      call,
      owner: message.id,
      result: result && !result.is_error ? result.content : undefined,
      error: result && result.is_error ? result.content : undefined,
      running: result === undefined,
    };
  });
}

type UserMsg = Extract<Message, { role: "user" }>;

/** A message the user typed: not an answer to the planner's question, not a Continue, not a restore. */
export function typedByUser(message: Message): message is UserMsg {
  return message.role === "user" && !message.plan_answer && !message.resume && !message.restored;
}

function UserMessage({ message, edits, running, planAgain, onFork }: { message: UserMsg; edits?: EditActions; running: boolean; planAgain: boolean; onFork?: (messageId: string) => void }) {
  if (message.resume) return <ContinueMarker message={message} />;
  if (message.plan_answer) {
    const { question, answer, comments } = planAnswer(message, t("plan.feedback"));
    return (
      <div class="message answer" data-message-id={message.id}>
        <span class="muted">{question}</span> {answer !== "" && <span class="answer-text">→ {answer}</span>}
        {comments > 0 && <span class="muted"> {t("review.sentWith", { count: comments })}</span>}
      </div>
    );
  }
  if (edits?.editing === message.id) return <EditBox message={message} edits={edits} />;
  return (
    <div class="message user" data-message-id={message.id}>
      <p class="user-text">{message.typed?.text ?? message.content}</p>
      {message.typed && <PromptExpansion typed={message.typed} content={message.content} />}
      <MessageFiles attachments={message.attachments} files={message.files} />
      {edits && !running && (
        <button type="button" class="edit-message" data-testid="edit-message" aria-label={t("messages.editResend")} title={t("messages.editResend")} onClick={() => edits.onEditStart(message.id)}>
          ✎
        </button>
      )}
      {onFork && <ForkButton messageId={message.id} onFork={onFork} />}
      {edits && planAgain && !running && (
        <button type="button" class="secondary small plan-again" data-testid="plan-again" onClick={() => edits.onEditSend(message.id, message.content)}>
          {t("messages.planAgain")}
        </button>
      )}
    </div>
  );
}

/** A Continue: the executor resumed after it stopped with tasks left. Its content is what the
 *  model reads (the open tasks and why it stopped), so it is a marker, not a typed bubble,
 *  with that text folded away; it cannot be edited. */
export function ContinueMarker({ message }: { message: UserMsg }) {
  const resume = message.resume!;
  return (
    <details class="continue-marker" data-testid="continue-marker" data-auto={resume.auto ? "true" : "false"} data-message-id={message.id}>
      <summary>
        <span class="compaction-rule" aria-hidden="true" />
        <span class="continue-label">{resume.auto ? t("messages.continuedAuto") : t("messages.continued")}</span>
        <span class="continue-reason small" data-testid="continue-reason">
          {t("messages.continuedFrom", { reason: stopReasonShort(resume.reason) })}
        </span>
        <span class="compaction-rule" aria-hidden="true" />
      </summary>
      <p class="small muted">{t("messages.continueHint")}</p>
      <pre class="continue-content">{message.content}</pre>
    </details>
  );
}

/** A user message being edited: Enter re-sends, Shift+Enter is a new line, Esc cancels. */
function EditBox({ message, edits }: { message: UserMsg; edits: EditActions }) {
  return (
    <div class="message user editing" data-message-id={message.id}>
      <textarea
        data-testid="edit-box"
        aria-label={t("messages.editBox")}
        rows={3}
        defaultValue={message.content}
        ref={(element) => element?.focus()}
        onKeyDown={(event) => {
          const text = event.currentTarget.value;
          if (event.key === "Escape") {
            event.preventDefault();
            edits.onEditCancel();
          } else if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            if (text.trim() !== "") edits.onEditSend(message.id, text);
          }
        }}
      />
      <p class="small muted">{t("messages.editHint")}</p>
    </div>
  );
}

/** Where the history was summarised for the model (DESIGN §13): the messages above stay
 *  readable here; the model sees the summary instead of them. */
export function CompactionDivider({ message }: { message: Extract<Message, { role: "compaction" }> }) {
  return (
    <details class="compaction" data-testid="compaction" data-message-id={message.id}>
      <summary>
        <span class="compaction-rule" aria-hidden="true" />
        <span class="compaction-label">{t("messages.compacted")}</span>
        <span class="compaction-rule" aria-hidden="true" />
      </summary>
      <p class="small muted">{t("messages.compactedHint")}</p>
      <Markdown text={message.content} />
    </details>
  );
}

/**
 * Keeps the messages in view where they were when an older page is put above them, and
 * scrolls a search hit's message into view once (marked with `search-target`).
 */
function useOlderPages(list: { current: HTMLDivElement | null }, first: string | undefined, pinned: { current: boolean }, target: string | null) {
  const before = useRef<{ first: string | undefined; height: number }>({ first, height: 0 });
  const reached = useRef<string | null>(null);
  useLayoutEffect(() => {
    const element = list.current;
    if (!element) return;
    if (before.current.first !== undefined && first !== before.current.first && !pinned.current) {
      element.scrollTop += element.scrollHeight - before.current.height;
    }
    before.current = { first, height: element.scrollHeight };
    if (target === null || reached.current === target) return;
    const message = element.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(target)}"]`);
    if (!message) return;
    reached.current = target;
    pinned.current = false;
    message.classList.add("search-target");
    message.scrollIntoView?.({ block: "center" });
  });
}
