// Test data in the engine's shapes (typed by the generated types, so they cannot drift).
import type { AppSettings } from "../generated/AppSettings";
import type { Chat } from "../generated/Chat";
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

/** The chat every fixture view is of. */
export const chat: Chat = {
  id: "chat1",
  title: "Chat",
  workspace: null,
  scope: null,
  plan_mode: true,
  auto_approve: false,
  save_plans: false,
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
  };
}
