// A card's one action that may be refused: while it is in flight the button is busy (a second
// press does nothing), and the refusal it resolves with is kept to be shown on the card.
import { useState } from "preact/hooks";

export function useAction(action: () => Promise<string | null>) {
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    if (sending) return;
    setSending(true);
    setError(null);
    try {
      setError(await action());
    } finally {
      setSending(false);
    }
  };
  return { sending, error, run };
}
