// Model output as HTML that cannot act: markdown (marked) with highlighted code
// (highlight.js, the languages of lib/highlight.ts), then sanitised by DOMPurify. This is the only
// source of HTML the window inserts; everything else is text nodes.
import DOMPurify from "dompurify";
import { Marked, type Tokens } from "marked";

import { hljs } from "./highlight";
import { runWhenIdle, warmUpLayout } from "./layoutWarmUp";

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const language = (lang ?? "").trim().split(/\s+/)[0] ?? "";
      const known = language !== "" && hljs.getLanguage(language) !== undefined;
      const body = known ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHtml(text);
      const label = known ? ` language-${escapeHtml(language)}` : "";
      return `<pre><code class="hljs${label}">${body}</code></pre>\n`;
    },
  },
});

/** What may survive: formatting only. No scripts, handlers, styles, forms or frames. */
const PURIFY = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "option", "iframe", "frame", "object", "embed", "link", "meta", "base", "svg", "math"],
  FORBID_ATTR: ["style", "srcset", "action", "formaction"],
  ALLOW_DATA_ATTR: false,
};

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    // Links never navigate the window (the view intercepts clicks); no opener either way.
    node.setAttribute("rel", "noopener noreferrer");
    node.removeAttribute("target");
  }
  if (node.tagName === "IMG") {
    // Only inline images: a remote one could not load under the CSP anyway.
    const src = node.getAttribute("src") ?? "";
    if (!src.startsWith("data:image/")) node.removeAttribute("src");
  }
});

/** Recently rendered texts: a block rendered while streaming is not parsed again when stored. */
const rendered = new Map<string, string>();
const RENDERED_MAX = 400;

/** Sanitised HTML for `markdown`. */
export function renderMarkdown(markdown: string): string {
  const cached = rendered.get(markdown);
  if (cached !== undefined) return cached;
  const html = DOMPurify.sanitize(marked.parse(markdown, { async: false }), PURIFY);
  if (rendered.size >= RENDERED_MAX) rendered.delete(rendered.keys().next().value as string);
  rendered.set(markdown, html);
  return html;
}

/**
 * Splits markdown at blank lines outside code fences, so that text streaming in can be
 * rendered block by block (see `StreamingMarkdown`). The stored message is rendered whole.
 */
export function splitBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && opener) fence = opener;
    else if (fence !== null && opener && opener[0] === fence[0] && opener.length >= fence.length && line.trim() === opener) fence = null;
    if (fence === null && line.trim() === "" && current.length > 0) {
      blocks.push(current.join("\n"));
      current = [];
    } else if (line.trim() !== "" || current.length > 0) {
      current.push(line);
    }
  }
  if (current.length > 0) blocks.push(current.join("\n"));
  return blocks;
}

/**
 * The finished blocks of text still streaming in, grouped as they finished, and the block
 * still growing. `previous` is the grouping of the last call (block counts per group): groups
 * never change once made, so each is parsed once; the growing block is shown as plain text.
 */
export function streamingChunks(text: string, previous: number[], done = false): { groups: number[]; chunks: string[]; tail: string } {
  const blocks = splitBlocks(text);
  const endsBlock = done || /\n[ \t]*\n\s*$/.test(text) && !/^ {0,3}(`{3,}|~{3,})/m.test(blocks.at(-1) ?? "") ;
  const finished = endsBlock ? blocks.length : Math.max(0, blocks.length - 1);
  let groups = previous;
  const grouped = previous.reduce((sum, count) => sum + count, 0);
  if (finished < grouped) groups = finished > 0 ? [finished] : [];
  else if (finished > grouped) groups = [...previous, finished - grouped];
  const chunks: string[] = [];
  let start = 0;
  for (const count of groups) {
    chunks.push(blocks.slice(start, start + count).join("\n\n"));
    start += count;
  }
  return { groups, chunks, tail: endsBlock ? "" : (blocks.at(-1) ?? "") };
}

/** A little of everything a reply shows, for the warm-up: one face or kind of block each. */
const WARM_UP = ["plain **bold**", "*italic*", "### Heading", "- item\n\n> quote [link](#)", "`code`", "```js\nconst x = 1;\n```"];

/**
 * Runs the pipeline while the window is idle and lays its output out hidden (see
 * lib/layoutWarmUp.ts), so the first reply pays for neither: each snippet's parse and its
 * layout are separate steps, one per idle moment, so no frame carries more than one.
 */
export function warmUpMarkdown(): void {
  const steps: (() => void)[] = [];
  for (const text of WARM_UP) {
    let html = "";
    steps.push(
      () => (html = renderMarkdown(text)),
      () => void warmUpLayout("markdown", html),
    );
  }
  for (const piece of ["user", "status", "tool"] as const) steps.push(() => void warmUpLayout(piece));
  runWhenIdle(steps);
}
