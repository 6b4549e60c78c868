// Model output rendered as sanitised markdown (lib/markdown.ts); links never navigate.
import { useMemo } from "preact/hooks";

import { renderMarkdown, streamingChunks } from "../lib/markdown";

function keepWindowInPlace(event: MouseEvent) {
  if (event.target instanceof Element && event.target.closest("a")) event.preventDefault();
}

export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // The only HTML the window inserts, and it is DOMPurify's output.
  return <div class={`markdown ${className ?? ""}`} onClick={keepWindowInPlace} dangerouslySetInnerHTML={{ __html: html }} />;
}

/** How each streamed message's paragraphs were grouped, by message id (see streamingChunks). */
const streamGroups = new Map<string, number[]>();

/** Whether `messageId` was streamed in this window (its stored text is then shown the same way). */
export function wasStreamed(messageId: string): boolean {
  return streamGroups.has(messageId);
}

/**
 * Text streaming in: finished paragraphs as markdown, each group parsed once; the paragraph
 * still growing as plain text (a text node), so a fast stream costs little. When the message
 * is stored (`done`), the same groups stay and only the last paragraph is parsed.
 */
export function StreamingMarkdown({ id, text, done }: { id: string; text: string; done: boolean }) {
  const { groups, chunks, tail } = streamingChunks(text, streamGroups.get(id) ?? [], done);
  streamGroups.set(id, groups);
  return (
    <div class="markdown-stream">
      {chunks.map((chunk, index) => (
        <Markdown key={index} text={chunk} />
      ))}
      {tail && <p class="stream-tail">{tail}</p>}
    </div>
  );
}
