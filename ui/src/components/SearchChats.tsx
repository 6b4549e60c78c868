// Ctrl+K: chats found by title and content as you type (the engine searches its store), each
// with an excerpt of where it matched; ↑/↓ move, Enter opens, Esc closes.
import { useEffect, useState } from "preact/hooks";

import type { ChatHit } from "../generated/ChatHit";
import { t } from "../lib/i18n";

export interface SearchChatsProps {
  search: (query: string) => Promise<ChatHit[]>;
  onOpen: (chatId: string) => void;
  onClose: () => void;
}

export function SearchChats({ search, onOpen, onClose }: SearchChatsProps) {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<ChatHit[]>([]);
  const [chosen, setChosen] = useState(0);
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      void search(query).then(
        (found) => {
          if (current) {
            setHits(found);
            setChosen(0);
          }
        },
        () => current && setHits([]),
      );
    }, 80);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [query, search]);
  const open = (index: number) => {
    const hit = hits[index];
    if (hit) onOpen(hit.chat.id);
  };
  return (
    <div class="search-backdrop" onClick={onClose}>
      <div class="search" role="dialog" aria-label={t("search.label")} data-testid="search" onClick={(event) => event.stopPropagation()}>
        <input
          data-testid="search-input"
          aria-label={t("search.input")}
          placeholder={t("search.placeholder")}
          value={query}
          ref={(element) => element?.focus()}
          onInput={(event) => setQuery(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.preventDefault();
              onClose();
            } else if (event.key === "ArrowDown") {
              event.preventDefault();
              setChosen((n) => Math.min(n + 1, Math.max(hits.length - 1, 0)));
            } else if (event.key === "ArrowUp") {
              event.preventDefault();
              setChosen((n) => Math.max(n - 1, 0));
            } else if (event.key === "Enter") {
              event.preventDefault();
              open(chosen);
            }
          }}
        />
        <ul class="search-hits" data-testid="search-hits">
          {hits.map((hit, index) => (
            <li key={hit.chat.id} class={index === chosen ? "chosen" : ""} data-testid="search-hit" onClick={() => open(index)}>
              <span class="search-title">{hit.chat.title}</span>
              {hit.excerpt && <span class="search-excerpt small muted">{hit.excerpt}</span>}
            </li>
          ))}
          {hits.length === 0 && <li class="muted small">{t("search.none")}</li>}
        </ul>
      </div>
    </div>
  );
}
