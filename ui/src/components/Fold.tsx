// Narrow windows (issue 48): below a width the chat list, and below a smaller one the task
// panel, fold away (styles.css's "Folding" rules decide where), and a toggle in the chat's
// heading opens each over the chat. Escape, its Close button or a click beside it closes it
// again and gives the focus back to its toggle. At full width the toggles, the Close buttons
// and the backdrop are not shown and the panels stand in their columns, open or not.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

import { t } from "../lib/i18n";

export type FoldName = "chats" | "tasks";

export interface Folds {
  /** The folded panel open over the chat, if any. */
  open: FoldName | null;
  toggle: (name: FoldName) => void;
  /** Closes the open panel; `refocus`: the focus goes back to its toggle. */
  close: (refocus?: boolean) => void;
  /** Opens `name` when it is folded (its toggle shows); at full width it is already there. */
  show: (name: FoldName) => void;
}

const toggleOf = (name: FoldName) => document.querySelector<HTMLElement>(`[data-testid="toggle-${name}"]`);
const folded = (name: FoldName) => (toggleOf(name)?.getClientRects().length ?? 0) > 0;

export function useFolds(): Folds {
  const [open, setOpen] = useState<FoldName | null>(null);
  const opened = useRef<FoldName | null>(null);
  opened.current = open;
  const close = useCallback((refocus = true) => {
    const current = opened.current;
    setOpen(null);
    // After the render that hides the panel: its toggle is then the place to go on from.
    if (current && refocus) setTimeout(() => toggleOf(current)?.focus());
  }, []);
  const toggle = useCallback((name: FoldName) => setOpen((current) => (current === name ? null : name)), []);
  const show = useCallback((name: FoldName) => {
    if (folded(name)) setOpen(name);
  }, []);
  // Opened: the focus moves into the panel, on its Close button.
  useEffect(() => {
    if (open) document.querySelector<HTMLElement>(`#fold-${open} .fold-close`)?.focus();
  }, [open]);
  // Escape closes it wherever the focus is, except in a field (where Escape has its own use).
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      if (event.key !== "Escape" || event.defaultPrevented || target?.closest("input, textarea, select, .dialog-backdrop, .search-backdrop")) return;
      event.preventDefault();
      close();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open, close]);
  return { open, toggle, close, show };
}

const LABELS: Record<FoldName, { toggle: () => string; close: () => string; icon: string }> = {
  chats: { toggle: () => t("fold.chats"), close: () => t("fold.closeChats"), icon: "☰" },
  tasks: { toggle: () => t("fold.tasks"), close: () => t("fold.closeTasks"), icon: "☑" },
};

/** The button that opens and closes a folded panel; `detail` follows its label (e.g. "2 of 3 done"). */
export function FoldToggle({ name, folds, detail }: { name: FoldName; folds: Folds; detail?: string }) {
  const labels = LABELS[name];
  return (
    <button
      type="button"
      class={`secondary fold-toggle fold-toggle-${name}`}
      data-testid={`toggle-${name}`}
      aria-expanded={folds.open === name}
      aria-controls={`fold-${name}`}
      onClick={() => folds.toggle(name)}
    >
      <span aria-hidden="true">{labels.icon}</span> {labels.toggle()}
      {detail && <span class="fold-detail"> · {detail}</span>}
    </button>
  );
}

/** A panel that folds: its column at full width, opened over the chat by its toggle when narrow. */
export function FoldPanel({ name, folds, children }: { name: FoldName; folds: Folds; children: ComponentChildren }) {
  const open = folds.open === name;
  return (
    <>
      {open && <div class={`fold-backdrop for-${name}`} data-testid={`fold-backdrop-${name}`} onClick={() => folds.close()} />}
      <div id={`fold-${name}`} class={`fold fold-${name}${open ? " open" : ""}`}>
        <div class="fold-head">
          <button type="button" class="secondary small fold-close" data-testid={`close-${name}`} aria-label={LABELS[name].close()} onClick={() => folds.close()}>
            <span aria-hidden="true">✕</span> {t("fold.close")}
          </button>
        </div>
        {children}
      </div>
    </>
  );
}
