// A search hit's snippet as plain text (issue 48): the message's Markdown (code fences,
// emphasis, links, headings, list and quote marks) left out, the matched words still marked.
// The pieces are joined with markers around the matched ones, cleaned as one text (a link
// may be cut by a match), and split again. Pure.
import type { SnippetPart } from "../generated/SnippetPart";

const OPEN = "\u0002";
const CLOSE = "\u0003";

/** Markdown's marks out of `text`, its words kept; whitespace (new lines too) made single spaces. */
export function plainText(text: string): string {
  return text
    .replace(/(```|~~~)[^\s`~]*/g, " ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)\s]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/(^|\n)[ \t]*#{1,6}[ \t]+/g, "$1")
    .replace(/(^|\n)[ \t]*(?:>[ \t]?)+/g, "$1")
    .replace(/(^|\n)[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/g, "$1")
    .replace(/(^|\n)[ \t]*(?:[-*_][ \t]*){3,}(?=\n|$)/g, "$1")
    .replace(/\*{1,3}(?=\S)|(?<=\S)\*{1,3}/g, "")
    .replace(/(^|[\s(\u0002\u0003])_{1,3}(?=\S)/g, "$1")
    .replace(/(?<=\S)_{1,3}(?=$|[\s).,;:!?\u0002\u0003])/g, "")
    .replace(/~~/g, "")
    .replace(/`+/g, "")
    .replace(/\s+/g, " ");
}

/** The snippet's pieces without Markdown, the matched ones still matched. */
export function plainSnippet(parts: SnippetPart[]): SnippetPart[] {
  const joined = parts.map((part) => (part.matched ? `${OPEN}${part.text}${CLOSE}` : part.text)).join("");
  const clean = plainText(joined).trim();
  const out: SnippetPart[] = [];
  for (const [index, piece] of clean.split(new RegExp(`[${OPEN}${CLOSE}]`)).entries()) {
    if (piece === "") continue;
    out.push({ text: piece, matched: index % 2 === 1 });
  }
  return out;
}
