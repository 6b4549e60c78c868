// The chat's word on its code sandbox once the executor works in a workspace: confined by
// bubblewrap, or plainly UNCONFINED (never a silent downgrade, DESIGN §11); and a venv of the
// workspace it does not use, with what the user can do (VenvCard).
import { useEffect, useRef, useState } from "preact/hooks";

import type { SandboxView } from "../generated/SandboxView";
import { t } from "../lib/i18n";
import { VenvCard } from "./VenvCard";

export interface SandboxNoticeProps {
  /** Changes when the chat or its workspace does: the notice is asked for again. */
  chatKey: string;
  executing: boolean;
  load: () => Promise<SandboxView>;
  /** Adopts the workspace's venv an earlier Preflight made, at the user's word. */
  adopt?: () => Promise<SandboxView>;
}

export function SandboxNotice({ chatKey, executing, load, adopt }: SandboxNoticeProps) {
  const [answer, setAnswer] = useState<{ key: string; view: SandboxView } | null>(null);
  const asked = useRef<string | null>(null);
  useEffect(() => {
    // Asked once per chat and workspace, when the executor first works; an answer that
    // arrives after the turn ended still shows, one for another chat does not.
    if (!executing || asked.current === chatKey) return;
    asked.current = chatKey;
    load().then(
      (view) => setAnswer({ key: chatKey, view }),
      () => undefined,
    );
  }, [executing, chatKey]);
  const view = answer?.key === chatKey ? answer.view : null;
  if (view === null || !view.available) return null;
  const words = view.confined ? t("sandbox.noticeConfined") : t("sandbox.noticeUnconfined");
  return (
    <>
      <p class={`sandbox-notice ${view.confined ? "ok" : "warn"}`} data-testid="sandbox-notice" title={view.text}>
        {words}
      </p>
      <VenvCard view={view} adopt={adopt} />
    </>
  );
}
