// The chat's menu (⋯ beside its title): Export as Markdown (for people) or as JSON (to import
// again, here or elsewhere), each through the native save dialog, which proposes the chat's
// title as the file's name. What happened is said under the menu: where the file went (for a
// few seconds), or why it was not written (until closed). Keyboard: Enter or ↓ opens, ↑/↓ move, Escape closes and gives the
// focus back to the button.
import { useEffect, useRef, useState } from "preact/hooks";

import type { ExportFormat } from "../generated/ExportFormat";
import { t } from "../lib/i18n";

export interface ChatMenuProps {
  /** Saves the chat's export in `format`; resolves with the path written, null when the
   *  dialog was cancelled; rejects with the reason in words. */
  onExport: (format: ExportFormat) => Promise<string | null>;
}

type Said = { kind: "done"; text: string } | { kind: "error"; text: string };

/** How long "Exported to …" stays. */
const DONE_MS = 8_000;

const ITEMS: { format: ExportFormat; label: () => string; testId: string }[] = [
  { format: "markdown", label: () => t("transfer.exportMarkdown"), testId: "export-markdown" },
  { format: "json", label: () => t("transfer.exportJson"), testId: "export-json" },
];

export function ChatMenu({ onExport }: ChatMenuProps) {
  const [open, setOpen] = useState(false);
  const [said, setSaid] = useState<Said | null>(null);
  const [busy, setBusy] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const items = useRef<(HTMLButtonElement | null)[]>([]);
  useEffect(() => {
    if (said?.kind !== "done") return undefined;
    const timer = setTimeout(() => setSaid(null), DONE_MS);
    return () => clearTimeout(timer);
  }, [said]);
  useEffect(() => {
    if (!open) return undefined;
    items.current[0]?.focus();
    const away = (event: MouseEvent) => {
      if (event.target instanceof Node && !root.current?.contains(event.target)) setOpen(false);
    };
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
  }, [open]);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const choose = async (format: ExportFormat) => {
    close();
    setBusy(true);
    setSaid(null);
    try {
      const path = await onExport(format);
      if (path !== null) setSaid({ kind: "done", text: t("transfer.exported", { path }) });
    } catch (error) {
      setSaid({ kind: "error", text: String(error instanceof Error ? error.message : error) });
    } finally {
      setBusy(false);
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const at = items.current.findIndex((item) => item === document.activeElement);
    const last = ITEMS.length - 1;
    const moves: Record<string, number> = { ArrowDown: Math.min(at + 1, last), ArrowUp: Math.max(at - 1, 0), Home: 0, End: last };
    if (event.key in moves) {
      event.preventDefault();
      items.current[moves[event.key]!]?.focus();
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === "Tab") {
      setOpen(false);
    }
  };
  return (
    <div class="chat-menu" ref={root}>
      <button
        type="button"
        ref={button}
        class="icon chat-menu-button"
        data-testid="chat-menu"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={t("transfer.menu")}
        title={t("transfer.menu")}
        aria-busy={busy}
        onClick={() => (open ? close() : setOpen(true))}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" && !open) {
            event.preventDefault();
            setOpen(true);
          }
        }}
      >
        ⋯
      </button>
      {open && (
        <div class="chat-menu-list" role="menu" aria-label={t("transfer.menu")} data-testid="chat-menu-list" onKeyDown={onKeyDown}>
          {ITEMS.map((item, index) => (
            <button type="button" role="menuitem" key={item.format} ref={(element) => {
                items.current[index] = element;
              }} data-testid={item.testId} onClick={() => void choose(item.format)}>
              {item.label()}
            </button>
          ))}
        </div>
      )}
      {said && (
        <p class={`chat-menu-said small ${said.kind === "error" ? "error" : "muted"}`} role={said.kind === "error" ? "alert" : "status"} data-testid={said.kind === "error" ? "export-error" : "export-done"}>
          {said.text}{" "}
          <button type="button" class="icon" aria-label={t("checkpoints.close")} title={t("checkpoints.close")} onClick={() => setSaid(null)}>
            ×
          </button>
        </p>
      )}
    </div>
  );
}
