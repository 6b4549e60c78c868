// Test data in the engine's shapes (typed by the generated types, so they cannot drift).
import type { AppSettings } from "../generated/AppSettings";
import type { Chat } from "../generated/Chat";
import type { ChatUsage } from "../generated/ChatUsage";
import type { ChatView } from "../generated/ChatView";
import type { Message } from "../generated/Message";
import type { PlanDocument } from "../generated/PlanDocument";
import type { Question } from "../generated/Question";

export function questions(): Question[] {
  return [
    { id: "q1", question: "Which format?", options: ["CSV", "JSON", "Excel"], answer: null },
    { id: "q2", question: "Which rows?", options: ["All", "Last month", "Archived too"], answer: null },
  ];
}

export function plan(overrides: Partial<PlanDocument> = {}): PlanDocument {
  return {
    text: "A plan",
    title: "CSV export",
    aim: "Orders can be exported as CSV",
    steps: [
      { action: "Add the route", expected: "GET /export answers" },
      { action: "Write the test", expected: "the test passes" },
    ],
    libraries: [{ name: "csv", purpose: "write rows", usage: "csv::Writer::from_writer" }],
    sandbox: { policy: "create", notes: "sample data", dir: "/work/shop/.sandbox", exists: false },
    questions: null,
    files: [],
    context: { workspace_path: "/work/shop", context7_available: false },
    created_at: "2026-11-30T10:00:00Z",
    approval: "pending",
    revision: 1,
    author: "planner",
    run_unconfined: false,
    ...overrides,
  };
}

export function user(id: string, content: string): Message {
  return { id, created_at: "2026-11-30T10:00:00Z", role: "user", content, files: [], plan_answer: false };
}

export function assistant(id: string, content: string, extra: Partial<Extract<Message, { role: "assistant" }>> = {}): Message {
  return { id, created_at: "2026-11-30T10:00:01Z", role: "assistant", content, questions: null, plan: null, ...extra };
}

/** What a chat that made no model call used. */
export const noUsage: ChatUsage = {
  planning: { calls: 0, input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, unpriced_calls: 0 },
  execution: { calls: 0, input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, unpriced_calls: 0 },
  context: { used: 0, window: 32768 },
};

/** The chat every fixture view is of. */
export const chat: Chat = {
  id: "chat1",
  title: "Chat",
  workspace: null,
  scope: [],
  plan_mode: true,
  auto_approve: false,
  save_plans: false,
  model: null,
  planner_model: null,
  created_at: "2026-11-30T10:00:00Z",
  updated_at: "2026-11-30T10:00:00Z",
};

/** Settings of a configured OpenAI-compatible provider, as the shell reports them. */
export const settings: AppSettings = {
  configured: true,
  provider: "openai",
  base_url: "http://127.0.0.1:11434/v1",
  model: "qwen2.5:7b",
  plan_mode: true,
  auto_approve: false,
  api_key_stored_in: null,
  config_path: "/home/u/.preflight/config.toml",
};

export function view(messages: Message[], phase: ChatView["state"]["phase"] = "idle", planDoc: PlanDocument | null = null): ChatView {
  return {
    ...chat,
    messages,
    state: { phase, plan_pending: null, plan: planDoc, completion: null, stopped: null, changes: [], executor_calls_tools: true },
    usage: noUsage,
  };
}

/** A PNG of one pixel, as base64 and as bytes (the engine's tests use the same image). */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
export const PNG = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
