// The first layout of each kind of content is slow in WebKitGTK (font faces and sizes are
// matched and loaded, glyph caches fill, built-in styles of elements such as <details> are set
// up). Measured on the 2-core test machine: the frames in which the first user message,
// the status line and the first streamed paragraph appeared took 40-110 ms (forced layouts of
// 19-34 ms), while later ones stay under 20 ms. Laying out a hidden sample of a conversation
// once, while the window is idle, moves that cost out of the reply. In one go it took 50-100 ms,
// so it is done in small steps, one per idle moment: each snippet's parse, its layout, and
// each piece of the window's own chrome apart (measured: 2-45 ms each; WebKitGTK 2.50 has no
// requestIdleCallback, so the steps are 30 ms timeouts apart).
//
// The sample is built from DOM nodes and text; the only HTML is `renderMarkdown`'s sanitised
// output, passed in by the caller.

function element(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The pieces of the sample, laid out one at a time (see warmUpLayout). */
export type WarmUpPiece = "markdown" | "user" | "status" | "tool";

/**
 * A piece of what a chat shows: "markdown" is an assistant message holding `markdownHtml`
 * (renderMarkdown's sanitised output); "user" a user message with typographic characters;
 * "status" a streamed tail and the status line; "tool" a tool block.
 */
function sample(piece: WarmUpPiece, markdownHtml: string): HTMLElement[] {
  switch (piece) {
    case "markdown": {
      const assistant = element("div", "message assistant");
      const stream = element("div", "markdown-stream");
      const markdown = element("div", "markdown");
      // renderMarkdown's output: sanitised by DOMPurify (lib/markdown.ts).
      markdown.innerHTML = markdownHtml;
      stream.append(markdown);
      assistant.append(stream);
      return [assistant];
    }
    case "user": {
      const user = element("div", "message user");
      user.append(element("p", "user-text", "Warm up → “quotes”, ‘apostrophes’ and dashes — …"));
      return [user];
    }
    case "status": {
      const assistant = element("div", "message assistant");
      const stream = element("div", "markdown-stream");
      stream.append(element("p", "stream-tail", "A paragraph still streaming in…"));
      assistant.append(stream);
      const status = element("p", "status-line");
      status.append(element("span", "spinner"), " Working… Drafting a plan…");
      return [assistant, status];
    }
    case "tool": {
      const tool = element("details", "tool done");
      const summary = element("summary", "");
      summary.append(element("span", "tool-sentence", "Read README.md"));
      tool.append(summary, element("pre", "tool-args", '{\n  "path": "README.md"\n}'));
      return [tool];
    }
  }
}

/**
 * Lays out one piece of the sample off screen and invisible, then removes it. Returns its
 * height (0 when nothing was laid out, as in jsdom).
 */
export function warmUpLayout(piece: WarmUpPiece, markdownHtml = "", parent: HTMLElement = document.body): number {
  const box = element("div", "messages layout-warm-up");
  box.setAttribute("aria-hidden", "true");
  // Set through the CSSOM, which the CSP allows (it forbids inline style attributes in markup).
  Object.assign(box.style, { position: "absolute", left: "-10000px", top: "0", width: "720px", visibility: "hidden", pointerEvents: "none" });
  box.append(...sample(piece, markdownHtml));
  parent.append(box);
  try {
    // Forces style and layout now (fonts are matched and loaded here), not at the first reply.
    return box.getBoundingClientRect().height;
  } finally {
    box.remove();
  }
}

/**
 * Runs `steps` one per idle moment of the window (the first after `firstDelayMs` when the
 * engine has no idle callbacks), so that no frame carries more than one. A step that fails is
 * logged and the next one still runs.
 */
export function runWhenIdle(steps: (() => void)[], firstDelayMs = 200): void {
  const queue = steps.slice();
  const schedule = (delayMs: number) => {
    // The window went away meanwhile (a test's document torn down): nothing left to warm up.
    if (typeof window === "undefined") return;
    if ("requestIdleCallback" in window) window.requestIdleCallback(next, { timeout: 2000 });
    else setTimeout(next, delayMs);
  };
  const next = () => {
    const step = queue.shift();
    if (!step) return;
    try {
      step();
    } catch (error) {
      // Only a warm-up: the reply will do the same work; never the window's error banner.
      console.warn("warm-up step failed", error);
    }
    if (queue.length > 0) schedule(30);
  };
  schedule(firstDelayMs);
}
