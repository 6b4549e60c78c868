// The models a chat may choose, read from the engine when a picker opens (the engine asks
// each provider's server, which may take a few seconds) and kept for the next opening; read
// anew after the providers changed (`generation`). One read at a time.
import { useEffect, useRef, useState } from "preact/hooks";

import type { ModelList } from "../generated/ModelList";
import { asApiError } from "./api";
import { describeError } from "./errorText";

export interface ModelsController {
  /** The last list read, or null before the first. */
  list: ModelList | null;
  /** A read is under way. */
  loading: boolean;
  /** Why the last read failed (the engine is not running), in words. */
  error: string | null;
  /** Reads the list again (a read under way is not doubled). */
  load: () => void;
}

export function useModels(read: () => Promise<ModelList>, generation: number): ModelsController {
  const [list, setList] = useState<ModelList | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const reading = useRef<number | null>(null);
  const current = useRef(generation);
  current.current = generation;
  // The providers changed: what was read is stale.
  useEffect(() => setList(null), [generation]);
  const load = () => {
    if (reading.current === generation) return;
    reading.current = generation;
    setLoading(true);
    read().then(
      (answer) => {
        if (current.current !== generation) return;
        setList(answer);
        setError(null);
      },
      (failure: unknown) => {
        if (current.current === generation) setError(describeError(asApiError(failure)));
      },
    ).finally(() => {
      if (reading.current === generation) reading.current = null;
      if (current.current === generation) setLoading(false);
    });
  };
  return { list, loading, error, load };
}
