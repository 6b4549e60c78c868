// The plan folder's verdict on the completion card (seed 002's finaliser, issue 49): VERIFIED,
// or UNVERIFIED with the engine's reasons (its English words, inside a sentence in the
// window's language), the tasks whose check failed when run again and are open again, the
// planned steps auto-approve dropped without the user, and, while the user has not decided,
// what they can do: run the checks again, Continue the open tasks, or accept the plan as is
// (a second step says what accepting records). Accepted, it says when, and offers nothing.
import { useEffect, useState } from "preact/hooks";

import type { Completion } from "../generated/Completion";
import type { FinalizationNote } from "../generated/FinalizationNote";
import { formatTime, t } from "../lib/i18n";
import { useAction } from "../lib/useAction";

/** How the plan ended, as the card's heading says it. */
export type Standing = "completed" | "not_verified" | "accepted";

/** VERIFIED (or no plan folder) is completed; UNVERIFIED waits for the user until accepted. */
export function standingOf(note: FinalizationNote | undefined): Standing {
  if (!note || note.verdict === "VERIFIED") return "completed";
  return note.accepted_at ? "accepted" : "not_verified";
}

/** The user's ways on from an unverified plan; each resolves with the error to show. */
export interface VerdictActions {
  onVerify?: () => Promise<string | null>;
  onAccept?: () => Promise<string | null>;
  onContinue?: () => Promise<string | null>;
}

export interface FinalizationProps extends VerdictActions {
  completion: Completion;
  note: FinalizationNote;
  /** A turn runs in the chat: the actions wait for it. */
  busy?: boolean;
  /** How many verdicts the chat has heard (see `ChatState.completionsHeard`). */
  verdictsHeard?: number;
  onOpenFolder?: () => void;
}

export function Finalization({ completion, note, busy = false, verdictsHeard = 0, onOpenFolder, ...actions }: FinalizationProps) {
  const verified = note.verdict === "VERIFIED";
  const standing = standingOf(note);
  const dropped = note.dropped_without_user;
  return (
    <section class={`finalization ${verified ? "verified" : "unverified"}`} data-testid="finalization" data-verdict={note.verdict}>
      <p>
        <strong>{verified ? t("completion.verified") : t("completion.unverified")}</strong>{" "}
        <span class="small muted">{t("completion.gatesRerun", { count: note.gates_rerun })}</span>
      </p>
      {standing === "accepted" && (
        <p data-testid="finalization-accepted">{t("completion.acceptedOn", { time: formatTime(note.accepted_at ?? "") })}</p>
      )}
      {note.reasons.length > 0 && (
        <>
          {!verified && <p>{t("completion.because")}</p>}
          <ul class="finalization-reasons" data-testid="finalization-reasons">
            {note.reasons.map((reason, index) => (
              <li key={index}>{reason}</li>
            ))}
          </ul>
        </>
      )}
      {dropped > 0 && (
        <p data-testid="finalization-auto-dropped">{t("completion.droppedWithoutYou", { count: dropped, planned: note.planned })}</p>
      )}
      <Reopened completion={completion} reopened={note.reopened ?? []} />
      {standing === "not_verified" && <VerdictChoices completion={completion} note={note} busy={busy} heard={verdictsHeard} {...actions} />}
      <p class="small">
        {onOpenFolder ? (
          <button type="button" class="link" data-testid="open-finalization" title={note.path} onClick={onOpenFolder}>
            {note.file}
          </button>
        ) : (
          <code title={note.path}>{note.file}</code>
        )}
      </p>
    </section>
  );
}

/** The tasks open again, each with its title as the task list ended. */
function Reopened({ completion, reopened }: { completion: Completion; reopened: number[] }) {
  if (reopened.length === 0) return null;
  const titles = new Map(completion.tasks.map((task) => [task.id, task.title]));
  return (
    <>
      <p>{t("completion.reopened", { count: reopened.length })}</p>
      <ul class="finalization-reopened" data-testid="finalization-reopened">
        {reopened.map((id) => (
          <li key={id}>
            <span class="task-id">{t("stop.taskId", { id })}</span> {titles.get(id) ?? ""}
          </li>
        ))}
      </ul>
    </>
  );
}

/** What the verdict is made of: a re-run's new verdict that reads otherwise changes it (new
 *  gate records at the least), one that reads the same is a verdict heard. */
function verdictKey(completion: Completion, heard: number): string {
  return JSON.stringify([heard, completion.finalization, completion.tasks.map((task) => task.gate?.last_run ?? null)]);
}

function VerdictChoices({ completion, note, busy, heard, onVerify, onAccept, onContinue }: VerdictActions & { completion: Completion; note: FinalizationNote; busy: boolean; heard: number }) {
  // The engine answers a re-run at once (202) and runs the checks after: the button stays
  // busy until the verdict they give arrives.
  const key = verdictKey(completion, heard);
  const [awaiting, setAwaiting] = useState<string | null>(null);
  useEffect(() => {
    if (awaiting !== null && awaiting !== key) setAwaiting(null);
  }, [key, awaiting]);
  const verify = useAction(async () => {
    const before = key;
    const error = (await onVerify?.()) ?? null;
    if (error === null) setAwaiting(before);
    return error;
  });
  const accept = useAction(async () => (await onAccept?.()) ?? null);
  const resume = useAction(async () => (await onContinue?.()) ?? null);
  const [confirming, setConfirming] = useState(false);
  const verifying = verify.sending || (awaiting !== null && awaiting === key);
  const held = busy || verifying || accept.sending || resume.sending;
  const error = verify.error ?? accept.error ?? resume.error;
  const reopened = (note.reopened ?? []).length > 0;
  return (
    <>
      <div class="card-actions">
        {onVerify && (
          <button type="button" class="primary" data-testid="finalization-verify" disabled={held} aria-busy={verifying} onClick={() => void verify.run()}>
            {verifying ? t("completion.verifying") : t("completion.verifyAgain")}
          </button>
        )}
        {onContinue && reopened && (
          <button type="button" data-testid="finalization-continue" disabled={held} aria-busy={resume.sending} onClick={() => void resume.run()}>
            {t("stop.continue")}
          </button>
        )}
        {onAccept && !confirming && (
          <button type="button" class="secondary" data-testid="finalization-accept" disabled={held} onClick={() => setConfirming(true)}>
            {t("completion.accept")}
          </button>
        )}
        {onContinue && reopened && <span class="small muted">{t("completion.continueHint")}</span>}
      </div>
      {onAccept && confirming && (
        <div class="finalization-confirm" role="group" aria-label={t("completion.accept")} data-testid="finalization-accept-confirm">
          <p>{t("completion.acceptConfirm")}</p>
          <div class="card-actions">
            <button type="button" class="primary" data-testid="finalization-accept-yes" disabled={held} aria-busy={accept.sending} onClick={() => void accept.run()}>
              {t("completion.acceptYes")}
            </button>
            <button type="button" data-testid="finalization-accept-back" disabled={accept.sending} onClick={() => setConfirming(false)}>
              {t("completion.acceptBack")}
            </button>
          </div>
        </div>
      )}
      {error && (
        <p class="error small" role="alert" data-testid="finalization-error">
          {error}
        </p>
      )}
    </>
  );
}
