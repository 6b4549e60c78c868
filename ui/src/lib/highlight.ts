// Code highlighting for the whole window: highlight.js with a few bundled languages (the
// markdown of replies, the workspace diffs). For the diffs, `highlightLines` turns its output
// into plain tokens per line, so a workspace file's text is drawn as text nodes, never as HTML.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const languages = { bash, css, diff, go, ini, javascript, json, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(languages)) {
  hljs.registerLanguage(name, language);
}
hljs.registerAliases(["sh", "shell", "console"], { languageName: "bash" });
hljs.registerAliases(["toml"], { languageName: "ini" });
hljs.registerAliases(["js", "jsx", "mjs", "cjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx", "mts", "cts"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["yml"], { languageName: "yaml" });

export { hljs };

/** A run of text and the highlight.js classes it is drawn with ("" for plain text). */
export interface Token {
  text: string;
  classes: string;
}

/** The language a file's name says, when one is bundled ("src/main.rs" → "rs"), else null. */
export function languageOfPath(path: string): string | null {
  const name = path.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  const extension = name.slice(dot + 1).toLowerCase();
  return hljs.getLanguage(extension) ? extension : null;
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'", "&#39;": "'" };

function decode(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}

/**
 * `code` highlighted as `language`, one token list per line. highlight.js writes only
 * `<span class="…">`, `</span>` and escaped text; anything else it wrote would come out as
 * text too, never as markup.
 */
export function highlightLines(code: string, language: string): Token[][] {
  const html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
  const lines: Token[][] = [[]];
  const open: string[] = [];
  for (const match of html.matchAll(/<span class="([^"]*)">|<\/span>|([^<]+|<)/g)) {
    if (match[1] !== undefined) open.push(match[1]);
    else if (match[2] === undefined) open.pop();
    else {
      const pieces = decode(match[2]).split("\n");
      pieces.forEach((piece, index) => {
        if (index > 0) lines.push([]);
        if (piece !== "") lines[lines.length - 1]!.push({ text: piece, classes: open.join(" ") });
      });
    }
  }
  return lines;
}
