// Model output rendered as sanitised markdown (lib/markdown.ts); links never navigate.
import { useMemo } from "preact/hooks";

import { renderMarkdown, splitBlocks } from "../lib/markdown";

function keepWindowInPlace(event: MouseEvent) {
  if (event.target instanceof Element && event.target.closest("a")) event.preventDefault();
}

export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // The only HTML the window inserts, and it is DOMPurify's output.
  return <div class={`markdown ${className ?? ""}`} onClick={keepWindowInPlace} dangerouslySetInnerHTML={{ __html: html }} />;
}

/** Text still streaming in: one block per paragraph, so only the last is parsed again. */
export function StreamingMarkdown({ text }: { text: string }) {
  return (
    <div class="markdown-stream">
      {splitBlocks(text).map((block, index) => (
        <Markdown key={index} text={block} />
      ))}
    </div>
  );
}
