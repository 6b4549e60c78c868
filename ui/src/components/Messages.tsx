// The conversation: user messages as text, assistant messages as sanitised markdown, tool
// calls as collapsible blocks (code-sandbox runs as terminal blocks), question and plan cards, and the executor's text streaming in.
import { useLayoutEffect, useRef } from "preact/hooks";

import type { Message } from "../generated/Message";
import type { ToolCall } from "../generated/ToolCall";
import type { PlanEdit } from "../generated/PlanEdit";
import { activeCard, planInProgress, type ChatState, type LiveTool } from "../lib/chatState";
import { Markdown, StreamingMarkdown, wasStreamed } from "./Markdown";
import { sandboxRunTool } from "../lib/sandbox";
import { ChangeCard } from "./ChangeCard";
import { CompletionCard } from "./CompletionCard";
import { PlanCard } from "./PlanCard";
import { SandboxRun } from "./SandboxRun";
import { QuestionCard } from "./QuestionCard";

export interface CardActions {
  onAnswer: (questionId: string, answer: string) => void;
  onAnswerChange: (changeId: string, approve: boolean) => void;
  onApprove: () => void;
  onRevise: (feedback: string) => void;
  onCancel: () => void;
  onEdit: (edit: PlanEdit) => Promise<void>;
}

type ToolMessage = Extract<Message, { role: "tool" }>;

export function Messages({ state, actions }: { state: ChatState; actions: CardActions }) {
  const { view } = state;
  const list = useRef<HTMLDivElement>(null);
  // Follows new output while the view is at the bottom; a user who scrolled up stays put.
  const pinned = useRef(true);
  useLayoutEffect(() => {
    if (pinned.current && list.current) list.current.scrollTop = list.current.scrollHeight;
  });
  const live = activeCard(view);
  const planRunning = planInProgress(view.state.phase);
  const results = toolResults(view.messages);
  return (
    <div
      class="messages"
      data-testid="messages"
      ref={list}
      onScroll={(event) => {
        const element = event.currentTarget;
        pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
      }}
    >
      {[
        ...interleave(view.messages, cardsOf(state, actions)).map((item) => {
          if (!("role" in item)) return item.node;
          const message = item;
          if (message.role === "tool") return null;
          if (message.role === "user") return <UserMessage key={message.id} message={message} />;
          if (message.role === "compaction") return <CompactionDivider key={message.id} message={message} />;
          if (message.questions) {
            const active = live?.id === message.id;
            const questions = active && view.state.plan_pending ? view.state.plan_pending.questions : message.questions;
            return <QuestionCard key={message.id} questions={questions} active={active} planRunning={planRunning} onAnswer={actions.onAnswer} onCancel={actions.onCancel} />;
          }
          if (message.plan) {
            const active = live?.id === message.id;
            const plan = active && view.state.plan ? view.state.plan : message.plan;
            return <PlanCard key={message.id} plan={plan} active={active} planRunning={planRunning} {...actions} />;
          }
          // A streamed message keeps its streamed rendering (same element, same key): storing
          // it re-parses only its last paragraph.
          return (
            <div class="message assistant" key={message.id} data-message-id={message.id}>
              {message.content.trim() !== "" &&
                (wasStreamed(message.id) ? <StreamingMarkdown id={message.id} text={message.content} done /> : <Markdown text={message.content} />)}
              {(message.tool_calls ?? []).map((call) => (
                <StoredTool key={call.id} call={call} result={results.get(resultKey(message.id, call.id))} />
              ))}
            </div>
          );
        }),
        ...state.streaming.map((entry) => (
          <div class="message assistant streaming" key={entry.id} data-testid="streaming">
            <StreamingMarkdown id={entry.id} text={entry.text} done={false} />
            {(state.tools[entry.id] ?? []).map((tool, index) => (
              <LiveToolBlock key={index} tool={tool} />
            ))}
          </div>
        )),
        ...Object.entries(state.tools)
          .filter(([id]) => !state.streaming.some((entry) => entry.id === id) && !view.messages.some((message) => message.id === id))
          .map(([id, tools]) => (
            <div class="message assistant" key={id}>
              {tools.map((tool, index) => (
                <LiveToolBlock key={index} tool={tool} />
              ))}
            </div>
          )),
      ]}
    </div>
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
  if (completion) cards.push({ at: completion.finished_at, node: <CompletionCard key="completion" completion={completion} /> });
  return cards.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** Messages in order with each card after the messages stored before it (RFC 3339 times in
 *  one format compare as text). */
export function interleave<T extends { created_at: string }, C extends { at: string }>(messages: T[], cards: C[]): (T | C)[] {
  const out: (T | C)[] = [];
  let next = 0;
  for (const message of messages) {
    while (next < cards.length && cards[next]!.at < message.created_at) out.push(cards[next++]!);
    out.push(message);
  }
  return out.concat(cards.slice(next));
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

function UserMessage({ message }: { message: Extract<Message, { role: "user" }> }) {
  if (message.plan_answer) {
    const [question, answer] = message.content.split("\nUser's answer: ");
    return (
      <div class="message answer" data-message-id={message.id}>
        <span class="muted">{question}</span> <span class="answer-text">→ {answer ?? ""}</span>
      </div>
    );
  }
  return (
    <div class="message user" data-message-id={message.id}>
      <p class="user-text">{message.content}</p>
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
        <span class="compaction-label">Earlier messages summarised</span>
        <span class="compaction-rule" aria-hidden="true" />
      </summary>
      <p class="small muted">The model now sees this summary instead of the messages above, which no longer fit its context. They stay here for you.</p>
      <Markdown text={message.content} />
    </details>
  );
}

function prettyArgs(args: unknown): string {
  if (typeof args === "string") {
    try {
      return JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      return args;
    }
  }
  return JSON.stringify(args, null, 2);
}

function ToolBlock(props: { name: string; args: unknown; result?: string; error?: string; running: boolean }) {
  const sandboxTool = sandboxRunTool(props.name);
  if (sandboxTool !== null) return <SandboxRun tool={sandboxTool} {...props} />;
  const state = props.running ? "running" : props.error !== undefined ? "failed" : "done";
  return (
    <details class={`tool ${state}`} data-testid="tool-block">
      <summary>
        <span class="tool-name">{props.name}</span> <span class="tool-state">{state}</span>
      </summary>
      <pre class="tool-args">{prettyArgs(props.args)}</pre>
      {props.result !== undefined && <pre class="tool-result">{props.result}</pre>}
      {props.error !== undefined && <pre class="tool-error">{props.error}</pre>}
    </details>
  );
}

function StoredTool({ call, result }: { call: ToolCall; result: ToolMessage | undefined }) {
  const text = result?.content;
  return (
    <ToolBlock
      name={call.name}
      args={call.arguments}
      result={result && !result.is_error ? text : undefined}
      error={result && result.is_error ? text : undefined}
      running={result === undefined}
    />
  );
}

function LiveToolBlock({ tool }: { tool: LiveTool }) {
  return <ToolBlock name={tool.name} args={tool.args} result={tool.result} error={tool.error} running={!tool.done} />;
}
