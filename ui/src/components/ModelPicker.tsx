// The chat's model (DESIGN §15), in the chat's header: a button naming the model the chat's
// next request goes to, opening a list grouped by provider (configured models first, a badge
// for those that see images, each window's size; a provider whose server did not answer says
// why and keeps its configured models). Choosing one changes the chat from its next request;
// a refusal is said under the button with what to do. While a turn runs the button says why
// it waits. Keyboard: Enter or ↓ opens, ↑/↓/Home/End move, Enter picks, Escape closes.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

import type { ModelChoice } from "../generated/ModelChoice";
import type { ModelOption } from "../generated/ModelOption";
import { describeError, errorLead } from "../lib/errorText";
import { t } from "../lib/i18n";
import { groupModels, optionOf, providerLabel, sameChoice, type ModelGroup } from "../lib/modelChoice";
import type { ModelsController } from "../lib/useModels";
import { formatTokens } from "../lib/usage";

export interface ModelPickerProps {
  /** The chat's choice; null: the configured default. */
  choice: ModelChoice | null;
  /** The default provider's model (Settings), named when the chat has no choice. */
  defaultModel: string;
  models: ModelsController;
  /** A turn runs: the choice waits for its end. */
  busy: boolean;
  /** Stores the choice; resolves with the refusal in words, or null. */
  onChoose: (choice: ModelChoice | null) => Promise<string | null>;
  onOpenSettings: () => void;
  /** Changed by another part of the window to open the list (the message box's "Choose
   *  another model" when the chat's model cannot see images). */
  openRequest?: number;
}

/** One row of the list: the default, or a provider's model. */
type Row = { id: string; choice: ModelChoice | null };

const DEFAULT_ROW = "model-row-default";
const rowId = (group: number, option: number) => `model-row-${group}-${option}`;

/** The rows in the order the keyboard walks them. */
function rowsOf(groups: ModelGroup[]): Row[] {
  const rows: Row[] = [{ id: DEFAULT_ROW, choice: null }];
  groups.forEach((group, g) => group.options.forEach((option, o) => rows.push({ id: rowId(g, o), choice: { provider: option.provider, model: option.model } })));
  return rows;
}

export function ModelPicker({ choice, defaultModel, models, busy, onChoose, onOpenSettings, openRequest = 0 }: ModelPickerProps) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [error, setError] = useState<{ text: string; retry: ModelChoice | null } | null>(null);
  const [saying, setSaying] = useState<string | null>(null);
  const [choosing, setChoosing] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const listbox = useRef<HTMLDivElement>(null);
  const groups = models.list ? groupModels(models.list) : [];
  const rows = rowsOf(groups);
  const shown = choice ?? { provider: "default", model: defaultModel };

  // A turn that starts while the list is open closes it: a switch now would be refused.
  useEffect(() => {
    if (busy) setOpen(false);
    else setSaying(null);
  }, [busy]);
  // A click elsewhere closes the list.
  useEffect(() => {
    if (!open) return undefined;
    const away = (event: MouseEvent) => {
      if (event.target instanceof Node && !root.current?.contains(event.target)) setOpen(false);
    };
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
  }, [open]);
  // The focus goes into the list as it opens, at the chat's own choice.
  useEffect(() => {
    if (open) listbox.current?.focus();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const at = rows.findIndex((row) => sameChoice(row.choice, choice));
    setActive(at < 0 ? 0 : at);
  }, [open, models.list]);
  useEffect(() => {
    if (open) document.getElementById(rows[active]?.id ?? "")?.scrollIntoView?.({ block: "nearest" });
  }, [open, active]);

  const openList = () => {
    if (busy) {
      setSaying(t("picker.busy"));
      return;
    }
    setError(null);
    models.load();
    setOpen(true);
  };
  // Only a request made while the picker is shown opens it, not one from before it mounted.
  const handledRequest = useRef(openRequest);
  useEffect(() => {
    if (openRequest === handledRequest.current) return;
    handledRequest.current = openRequest;
    openList();
  }, [openRequest]);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const choose = async (next: ModelChoice | null) => {
    close();
    if (sameChoice(next, choice)) return;
    setChoosing(true);
    const refused = await onChoose(next);
    setChoosing(false);
    setError(refused === null ? null : { text: refused, retry: next });
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const last = rows.length - 1;
    const moves: Record<string, number> = { ArrowDown: Math.min(active + 1, last), ArrowUp: Math.max(active - 1, 0), Home: 0, End: last };
    if (event.key in moves) {
      event.preventDefault();
      setActive(moves[event.key]!);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      const row = rows[active];
      if (row) void choose(row.choice);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === "Tab") {
      setOpen(false);
    }
  };
  const option = (row: Row, content: ComponentChildren, testId: string) => (
    <div
      role="option"
      id={row.id}
      key={row.id}
      class={`model-option${rows[active]?.id === row.id ? " active" : ""}`}
      data-testid={testId}
      data-provider={row.choice?.provider}
      data-model={row.choice?.model}
      aria-selected={sameChoice(row.choice, choice)}
      onMouseDown={(event) => event.preventDefault()}
      onClick={() => void choose(row.choice)}
    >
      {content}
    </div>
  );
  return (
    <div class="model-picker" data-testid="model-picker" ref={root}>
      <button
        type="button"
        ref={button}
        class="secondary small model-button"
        data-testid="model-button"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-disabled={busy || choosing}
        title={busy ? t("picker.busy") : t("picker.hint")}
        onClick={() => (open ? close() : openList())}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" && !open) {
            event.preventDefault();
            openList();
          }
        }}
      >
        <span class="visually-hidden">{t("picker.label")} </span>
        <span class="model-name" data-testid="model-name">
          {shown.model}
        </span>
        <span class="model-provider muted">{choice === null ? t("picker.default") : providerLabel(shown.provider)}</span>
        {optionOf(models.list, shown)?.vision && <VisionBadge />}
        <span class="caret" aria-hidden="true">
          ▾
        </span>
      </button>
      {open && (
        <div class="model-popover" data-testid="model-popover">
          {models.error && (
            <p class="error small" data-testid="model-list-error">
              {models.error}
            </p>
          )}
          <div role="listbox" class="model-list" ref={listbox} tabindex={0} aria-label={t("picker.listLabel")} aria-activedescendant={rows[active]?.id} onKeyDown={onKeyDown}>
            {option(rows[0]!, <span>{t("picker.useDefault", { model: defaultModel })}</span>, "model-option-default")}
            {groups.map((group, g) => (
              <div role="group" key={group.provider} aria-labelledby={`model-group-${g}`} class="model-group" data-provider={group.provider}>
                <div role="presentation" id={`model-group-${g}`} class="model-group-label">
                  {providerLabel(group.provider)}
                  {group.state && <span class="muted"> · {group.state.kind}</span>}
                </div>
                {group.state?.error && (
                  <div role="presentation" class="model-group-error small" data-testid="model-group-error" title={describeError(group.state.error)}>
                    {t("picker.providerDown", { lead: errorLead(group.state.error.code) })}
                  </div>
                )}
                {group.options.map((entry, o) => option({ id: rowId(g, o), choice: { provider: entry.provider, model: entry.model } }, <OptionContent option={entry} />, "model-option"))}
              </div>
            ))}
          </div>
          {/* Below the list: a list read again does not move under the pointer. */}
          {models.loading && (
            <p class="small muted model-asking" aria-live="polite">
              {t("picker.asking")}
            </p>
          )}
        </div>
      )}
      {saying && (
        <p class="small muted model-note" role="status" data-testid="model-busy">
          {saying}
        </p>
      )}
      {error && (
        <p class="error small model-note" role="alert" data-testid="model-error">
          {error.text}{" "}
          <button type="button" class="secondary small" data-testid="model-retry" onClick={() => void choose(error.retry)}>
            {t("picker.retry")}
          </button>{" "}
          <button type="button" class="secondary small" onClick={onOpenSettings}>
            {t("picker.openSettings")}
          </button>
        </p>
      )}
    </div>
  );
}

function VisionBadge() {
  return (
    <span class="model-badge" data-testid="vision-badge" title={t("picker.visionHint")}>
      {t("picker.vision")}
    </span>
  );
}

function OptionContent({ option }: { option: ModelOption }) {
  return (
    <>
      <span class="model-option-name">{option.model}</span>
      {option.vision && <VisionBadge />}
      {!option.tools && <span class="model-badge muted">{t("picker.noTools")}</span>}
      {option.context_window !== undefined && <span class="model-window muted small">{t("picker.window", { tokens: formatTokens(option.context_window) })}</span>}
      {!option.configured && <span class="model-served muted small">{t("picker.served")}</span>}
    </>
  );
}
