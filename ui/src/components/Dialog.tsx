// A modal dialog over the window (the workspace diff, the restore confirmation): focus moves
// in when it opens and back where it was when it closes, Tab stays inside, Escape or a click
// on the backdrop closes it. Escape goes no further, so it never also stops a running turn.
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

import { t } from "../lib/i18n";

export interface DialogProps {
  title: ComponentChildren;
  /** On the dialog element (the end-to-end tests find it by this). */
  testId: string;
  class?: string;
  onClose: () => void;
  children: ComponentChildren;
}

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [href], [tabindex]:not([tabindex="-1"])';

/** Keeps Tab and Shift+Tab on the dialog's own controls. */
function trapTab(event: KeyboardEvent, dialog: HTMLElement) {
  const controls = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
  if (controls.length === 0) return;
  const first = controls[0]!;
  const last = controls[controls.length - 1]!;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || active === dialog)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && active === last) {
    event.preventDefault();
    first.focus();
  }
}

let dialogCount = 0;

export function Dialog({ title, testId, class: className, onClose, children }: DialogProps) {
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useRef(`dialog-title-${(dialogCount += 1)}`).current;
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    panel.current?.focus();
    return () => opener?.focus();
  }, []);
  return (
    <div class="dialog-backdrop" onClick={onClose}>
      <div
        class={`dialog ${className ?? ""}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={testId}
        tabIndex={-1}
        ref={panel}
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            event.stopPropagation();
            onClose();
          } else if (event.key === "Tab" && panel.current) {
            trapTab(event, panel.current);
          }
        }}
      >
        <header class="dialog-head">
          <h2 class="dialog-title" id={titleId}>
            {title}
          </h2>
          <button type="button" class="icon dialog-close" data-testid={`${testId}-close`} aria-label={t("checkpoints.close")} title={t("checkpoints.close")} onClick={onClose}>
            ×
          </button>
        </header>
        <div class="dialog-body">{children}</div>
      </div>
    </div>
  );
}
