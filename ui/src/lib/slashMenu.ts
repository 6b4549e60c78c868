// The message box's slash and @ menus (DESIGN §17), as data: which menu the text being
// typed opens, the prompts or resources it offers (filtered by what is typed), what choosing
// one puts in the box, and the arguments a prompt still takes. The engine reads the same
// syntax when the message is sent (crates/engine/src/lifecycle/typed_input/syntax.rs): a
// message whose first word is `/NAME`, and `@server:uri` words.
import type { PromptInfo } from "../generated/PromptInfo";
import type { ResourceInfo } from "../generated/ResourceInfo";

/** The menu the text opens: prompts while the first word `/…` is typed, resources while
 *  the last word `@…` is, else none. */
export type MenuTrigger = { kind: "prompt"; query: string } | { kind: "resource"; query: string; start: number } | null;

/** Most rows a menu shows. */
export const MENU_ROWS = 8;

export function triggerOf(text: string): MenuTrigger {
  if (text.startsWith("/") && !/\s/.test(text)) return { kind: "prompt", query: text.slice(1) };
  const match = /(^|\s)@(\S*)$/.exec(text);
  if (match) return { kind: "resource", query: match[2] ?? "", start: match.index + (match[1] ?? "").length };
  return null;
}

const matches = (query: string, ...fields: (string | undefined)[]) => {
  const wanted = query.toLowerCase();
  return fields.some((field) => field !== undefined && field.toLowerCase().includes(wanted));
};

/** The prompts `query` names: those whose command starts with it first, then the others
 *  that contain it (in their command, title or description). */
export function filterPrompts(prompts: PromptInfo[], query: string): PromptInfo[] {
  const q = query.toLowerCase();
  const starts = prompts.filter((p) => p.command.toLowerCase().startsWith(q));
  const rest = prompts.filter((p) => !starts.includes(p) && matches(query, p.command, p.title, p.description));
  return [...starts, ...rest].slice(0, MENU_ROWS);
}

export function filterResources(resources: ResourceInfo[], query: string): ResourceInfo[] {
  return resources.filter((r) => matches(query, `${r.server}:${r.uri}`, r.name, r.title)).slice(0, MENU_ROWS);
}

/** The box after choosing `prompt`: its command, and a blank for the arguments. */
export function completePrompt(prompt: PromptInfo): string {
  return `/${prompt.command} `;
}

/** The box after choosing `resource` for the `@…` word at `start`. */
export function completeResource(text: string, start: number, resource: ResourceInfo): string {
  return `${text.slice(0, start)}${resource.reference} `;
}

/** `city [state]`: what a prompt takes, required arguments bare, optional ones bracketed. */
export function usageOf(prompt: PromptInfo): string {
  return prompt.arguments.map((a) => (a.required ? a.name : `[${a.name}]`)).join(" ");
}

/** The prompt the box's first line uses once its name is typed (`/NAME ` and arguments). */
export function promptInUse(text: string, prompts: PromptInfo[]): PromptInfo | null {
  const match = /^\/(\S+)\s/.exec(text);
  if (!match) return null;
  const name = match[1];
  return prompts.find((p) => p.command === name || `${p.server}:${p.name}` === name) ?? null;
}
