// Ctrl+K: the engine's full-text search over every chat's title and messages as you type,
// each hit with its snippet as plain text (the matched words marked; Markdown's fences,
// emphasis and links left out: a snippet is never HTML);
// ↑/↓ move, Enter opens the chat at the hit, Esc closes. Scrolling to the end loads more.
import { useEffect, useState } from "preact/hooks";

import type { SearchHit } from "../generated/SearchHit";
import type { SearchPage } from "../generated/SearchPage";
import { t } from "../lib/i18n";
import { plainSnippet } from "../lib/plainSnippet";

export interface SearchChatsProps {
  search: (query: string, cursor: string | null) => Promise<SearchPage>;
  /** Opens the chat; at the message when the hit is one (null: its title matched). */
  onOpen: (chatId: string, messageId: string | null) => void;
  onClose: () => void;
}

export function SearchChats({ search, onOpen, onClose }: SearchChatsProps) {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [chosen, setChosen] = useState(0);
  useEffect(() => {
    let current = true;
    if (query.trim() === "") {
      setHits([]);
      setNext(null);
      return;
    }
    const timer = setTimeout(() => {
      void search(query, null).then(
        (page) => {
          if (!current) return;
          setHits(page.data);
          setNext(page.next_cursor);
          setChosen(0);
        },
        () => current && setHits([]),
      );
    }, 80);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [query, search]);
  const more = () => {
    if (next === null) return;
    const asked = next;
    setNext(null);
    void search(query, asked).then((page) => {
      setHits((shown) => [...shown, ...page.data]);
      setNext(page.next_cursor);
    });
  };
  const open = (index: number) => {
    const hit = hits[index];
    if (hit) onOpen(hit.chat_id, hit.message_id);
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
              if (chosen >= hits.length - 2) more();
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
        <ul
          class="search-hits"
          data-testid="search-hits"
          onScroll={(event) => {
            const list = event.currentTarget;
            if (list.scrollHeight - list.scrollTop - list.clientHeight < 40) more();
          }}
        >
          {hits.map((hit, index) => (
            <li key={`${hit.chat_id}/${hit.message_id ?? ""}`} class={index === chosen ? "chosen" : ""} data-testid="search-hit" onClick={() => open(index)}>
              <span class="search-title">{hit.message_id === null ? <Snippet hit={hit} /> : hit.chat_title}</span>
              {hit.message_id !== null && (
                <span class="search-excerpt small muted">
                  <Snippet hit={hit} />
                </span>
              )}
            </li>
          ))}
          {hits.length === 0 && query.trim() !== "" && <li class="muted small">{t("search.none")}</li>}
        </ul>
      </div>
    </div>
  );
}

/** The snippet's pieces as plain text nodes, the matched ones in `<mark>`. */
function Snippet({ hit }: { hit: SearchHit }) {
  return (
    <>
      {plainSnippet(hit.snippet).map((part, index) => (part.matched ? <mark key={index}>{part.text}</mark> : <span key={index}>{part.text}</span>))}
    </>
  );
}
