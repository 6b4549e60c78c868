// Whether the chat's model sees images (DESIGN §15), as the message box needs to know before
// a message with images is sent: the engine refuses such a message to a model that cannot
// see them, and the box says so first, in words, naming the model. Pure: the engine's model
// list and the chat's choices in, the verdict out. The engine stays the judge: where the
// list cannot tell (not read yet, a provider that did not answer), nothing is held back.
import type { ChatView } from "../generated/ChatView";
import type { ModelChoice } from "../generated/ModelChoice";
import type { ModelList } from "../generated/ModelList";
import { DEFAULT_PROVIDER, sameChoice } from "./modelChoice";

export interface Vision {
  /** Whether the model sees images; null while the list cannot tell. */
  sees: boolean | null;
  /** The model, by name, as the refusal names it. */
  model: string;
}

/** `choice` (null: the default provider's own model) against the list. A provider's models
 *  share its `vision` setting, so another of its rows tells for one the list lacks. */
export function visionOf(list: ModelList | null, choice: ModelChoice | null, defaultModel: string): Vision {
  const provider = choice?.provider ?? DEFAULT_PROVIDER;
  const own = list?.providers.find((state) => state.name === provider);
  const model = choice?.model ?? (own?.model || defaultModel);
  if (!list) return { sees: null, model };
  const named = { provider, model };
  const row = list.data.find((option) => sameChoice(option, named)) ?? list.data.find((option) => option.provider === provider);
  return { sees: row ? row.vision : null, model };
}

/** Whether the chat's next message goes to the planner: a plan-mode chat nobody has written
 *  in yet (as far as the view shows: an older page means someone has). */
export function nextMessagePlans(view: ChatView): boolean {
  const typed = view.messages.some((message) => message.role === "user" && !message.plan_answer && !message.resume && !message.restored);
  return view.plan_mode && view.messages_cursor === undefined && !typed;
}

/** The first model the message's images would be refused by: the planner's (when the chat
 *  plans it and names one) or the executor's; null when none is known to refuse them. */
export function blindModel(list: ModelList | null, view: ChatView, defaultModel: string): Vision | null {
  const checks: Vision[] = [];
  if (nextMessagePlans(view) && view.planner_model) checks.push(visionOf(list, view.planner_model, defaultModel));
  checks.push(visionOf(list, view.model, defaultModel));
  return checks.find((check) => check.sees === false) ?? null;
}
