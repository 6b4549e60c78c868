// The message box's slash and @ menus (DESIGN §17): typing `/` at the start of the box lists
// the chat's MCP prompts, `@` starting a word lists its resources; both filter as typed.
// ↑↓ move, Enter or Tab completes, Esc closes. Once a prompt's name is in the box, the
// arguments it takes are shown under it. The lists are read once, when a menu first opens;
// a list that cannot be read, or servers that did not answer, are said in the menu.
// What the menus complete is sent as typed: the engine expands it (and refuses, in words,
// what it cannot).
import { useEffect, useState } from "preact/hooks";

import type { ApiError } from "../generated/ApiError";
import type { PromptInfo } from "../generated/PromptInfo";
import type { PromptList } from "../generated/PromptList";
import type { ResourceInfo } from "../generated/ResourceInfo";
import type { ResourceList } from "../generated/ResourceList";
import type { TypedPrompt } from "../generated/TypedPrompt";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";
import { completePrompt, completeResource, filterPrompts, filterResources, promptInUse, triggerOf, usageOf } from "../lib/slashMenu";

/** Where the menus read the chat's prompts and resources. */
export interface OfferSource {
  prompts: () => Promise<PromptList>;
  resources: () => Promise<ResourceList>;
}

type Loaded<T> = { list: T } | { error: string } | null;

function useList<T>(wanted: boolean, load: (() => Promise<T>) | undefined): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>(null);
  useEffect(() => {
    if (!wanted || loaded !== null || !load) return;
    load().then(
      (list) => setLoaded({ list }),
      (error: ApiError) => setLoaded({ error: describeError(error) }),
    );
  }, [wanted]);
  return loaded;
}

/** A menu row; `command` is what the user types for it (`/command`, `@server:uri`): Enter
 *  completes a row only while what is typed starts it, so typed text (`/tmp`, `@alice`) that
 *  merely matches a description is sent as typed. Tab always completes. */
type Row = { key: string; label: string; detail?: string; command: string; pick: () => void };

/** The menus over the box's `text`; `onKey` takes the keys they use (true when taken). */
export function useOfferMenu(text: string, setText: (text: string) => void, source?: OfferSource) {
  const trigger = source ? triggerOf(text) : null;
  const [closedAt, setClosedAt] = useState<string | null>(null);
  const [selected, setSelected] = useState(0);
  const prompts = useList(trigger?.kind === "prompt" || text.startsWith("/"), source?.prompts);
  const resources = useList(trigger?.kind === "resource", source?.resources);
  useEffect(() => setSelected(0), [trigger?.kind, trigger?.query]);
  const open = trigger !== null && closedAt !== text;
  const loaded = trigger?.kind === "prompt" ? prompts : resources;
  let rows: Row[] = [];
  if (open && loaded && "list" in loaded) {
    rows =
      trigger.kind === "prompt"
        ? filterPrompts((loaded.list as PromptList).prompts, trigger.query).map((p) => promptRow(p, setText))
        : filterResources((loaded.list as ResourceList).resources, trigger.query).map((r) => resourceRow(r, () => setText(completeResource(text, trigger.start, r))));
  }
  const onKey = (event: KeyboardEvent): boolean => {
    if (!open) return false;
    if (event.key === "Escape") {
      setClosedAt(text);
      return true;
    }
    if (rows.length === 0) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : rows.length - 1;
      setSelected((index) => (index + step) % rows.length);
      return true;
    }
    const row = rows[Math.min(selected, rows.length - 1)];
    if (event.key === "Enter" && !event.shiftKey && row && trigger && !row.command.toLowerCase().startsWith(trigger.query.toLowerCase())) return false;
    if ((event.key === "Enter" && !event.shiftKey) || event.key === "Tab") {
      row?.pick();
      return true;
    }
    return false;
  };
  const inUse = prompts && "list" in prompts ? promptInUse(text, prompts.list.prompts) : null;
  const element = open ? (
    <MenuList kind={trigger.kind} rows={rows} selected={selected} loaded={loaded} query={trigger.query} />
  ) : inUse && inUse.arguments.length > 0 ? (
    <ArgumentHint prompt={inUse} />
  ) : null;
  return { open: open && rows.length > 0, onKey, element };
}

function promptRow(prompt: PromptInfo, setText: (text: string) => void): Row {
  const usage = usageOf(prompt);
  return {
    key: `${prompt.server}:${prompt.name}`,
    command: prompt.command,
    label: `/${prompt.command}${usage ? ` ${usage}` : ""}`,
    detail: [prompt.description ?? prompt.title, t("prompts.from", { server: prompt.server })].filter(Boolean).join(" · "),
    pick: () => setText(completePrompt(prompt)),
  };
}

function resourceRow(resource: ResourceInfo, pick: () => void): Row {
  return { key: resource.reference, command: resource.reference.replace(/^@/, ""), label: resource.title ?? resource.name, detail: resource.reference, pick };
}

function MenuList({ kind, rows, selected, loaded, query }: { kind: "prompt" | "resource"; rows: Row[]; selected: number; loaded: Loaded<PromptList | ResourceList>; query: string }) {
  const failed = loaded && "list" in loaded ? loaded.list.failed : [];
  return (
    <div class="offer-menu" data-testid={kind === "prompt" ? "slash-menu" : "resource-menu"}>
      {loaded === null && <p class="small muted">{t("prompts.loading")}</p>}
      {loaded && "error" in loaded && (
        <p class="small notice" role="alert">
          {loaded.error}
        </p>
      )}
      {loaded && "list" in loaded && rows.length === 0 && <p class="small muted">{kind === "prompt" ? t("prompts.noPrompts", { query }) : t("prompts.noResources", { query })}</p>}
      {rows.length > 0 && (
        <ul role="listbox" aria-label={kind === "prompt" ? t("prompts.menu") : t("prompts.resourceMenu")}>
          {rows.map((row, index) => (
            <li key={row.key} role="option" aria-selected={index === selected} class={index === selected ? "selected" : undefined} onMouseDown={(event) => {
              event.preventDefault();
              row.pick();
            }}>
              <span class="offer-label">{row.label}</span>
              {row.detail && <span class="small muted"> {row.detail}</span>}
            </li>
          ))}
        </ul>
      )}
      {failed.length > 0 && <p class="small muted">{t("prompts.failed", { servers: failed.map((f) => f.server).join(", ") })}</p>}
      <p class="small muted">{t("prompts.keys")}</p>
    </div>
  );
}

function ArgumentHint({ prompt }: { prompt: PromptInfo }) {
  return (
    <div class="offer-hint small" data-testid="prompt-arguments">
      <span class="offer-label">/{prompt.command}</span>{" "}
      {prompt.arguments.map((a) => (
        <span key={a.name} class="offer-argument">
          {a.required ? a.name : `[${a.name}]`}
          {a.description && <span class="muted"> — {a.description}</span>}{" "}
        </span>
      ))}
      <span class="muted">{t("prompts.argumentsHint")}</span>
    </div>
  );
}

/** A sent prompt: what the user typed, with the expansion the model read unfoldable. */
export function PromptExpansion({ typed, content }: { typed: TypedPrompt; content: string }) {
  return (
    <details class="prompt-expansion small" data-testid="prompt-expansion">
      <summary>{t("prompts.expanded", { prompt: typed.prompt, server: typed.server })}</summary>
      <pre>{content}</pre>
    </details>
  );
}
