import { describe, expect, it } from "vitest";

import { renderMarkdown, splitBlocks, streamingChunks } from "../lib/markdown";

function dom(html: string): HTMLElement {
  const div = document.createElement("div");
  div.innerHTML = html;
  return div;
}

describe("renderMarkdown", () => {
  it("draws a table with its header row and cells, aligned as written", () => {
    const root = dom(renderMarkdown("| Tool | Calls |\n|:---|---:|\n| run_command | 3 |\n| <b onclick=x>pip</b> | 1 |\n"));
    const table = root.querySelector("table");
    expect(table).not.toBeNull();
    expect([...table!.querySelectorAll("thead th")].map((th) => th.textContent)).toEqual(["Tool", "Calls"]);
    const rows = [...table!.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent));
    expect(rows).toEqual([["run_command", "3"], ["pip", "1"]]);
    expect(table!.querySelector("th:last-child")!.getAttribute("align")).toBe("right");
    expect(root.innerHTML).not.toContain("onclick");
  });

  it("renders a model's HTML inert: no handlers, scripts, styles or remote images", () => {
    const cases = [
      '<img src=x onerror="alert(1)">',
      "<script>alert(1)</script>",
      '<a href="javascript:alert(1)">click</a>',
      '<div style="position:fixed" onclick="alert(1)">x</div>',
      '<iframe src="https://example.com"></iframe>',
      "<svg><script>alert(1)</script></svg>",
      '<form action="https://example.com"><input name=a></form>',
    ];
    for (const input of cases) {
      const html = renderMarkdown(`text before\n\n${input}\n\nafter`);
      const root = dom(html);
      expect(root.querySelector("script, iframe, form, input, svg, style"), input).toBeNull();
      for (const element of root.querySelectorAll("*")) {
        for (const attribute of element.getAttributeNames()) {
          expect(attribute.startsWith("on") || attribute === "style", `${input} kept ${attribute}`).toBe(false);
        }
      }
      expect(html).not.toContain("javascript:");
      for (const image of root.querySelectorAll("img")) expect(image.getAttribute("src")).toBeNull();
    }
  });

  it("highlights fenced code in known languages and escapes the rest", () => {
    const html = renderMarkdown("```rust\nfn main() {}\n```\n\n```nosuch\n<b>x</b>\n```");
    const root = dom(html);
    expect(root.querySelector("code.language-rust .hljs-keyword")?.textContent).toBe("fn");
    expect(root.querySelectorAll("b")).toHaveLength(0);
    expect(root.textContent).toContain("<b>x</b>");
  });

  it("keeps ordinary markdown and marks links as going nowhere new", () => {
    const root = dom(renderMarkdown("# Title\n\n- **bold** item\n\n[docs](https://example.com)"));
    expect(root.querySelector("h1")?.textContent).toBe("Title");
    expect(root.querySelector("li strong")?.textContent).toBe("bold");
    expect(root.querySelector("a")?.getAttribute("rel")).toBe("noopener noreferrer");
  });
});

describe("splitBlocks", () => {
  it("splits at blank lines but never inside a code fence", () => {
    const text = "# Title\n\nFirst para\nstill first\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n- item\n";
    expect(splitBlocks(text)).toEqual(["# Title", "First para\nstill first", "```js\nconst a = 1;\n\nconst b = 2;\n```", "- item"]);
  });

  it("keeps an unclosed fence (still streaming) as one block", () => {
    expect(splitBlocks("Intro\n\n~~~\ncode\n\nmore code")).toEqual(["Intro", "~~~\ncode\n\nmore code"]);
  });
});

describe("streamingChunks", () => {
  it("parses each finished paragraph group once and keeps the growing one as text", () => {
    let groups: number[] = [];
    let step = streamingChunks("Intro para", groups);
    expect([step.chunks, step.tail]).toEqual([[], "Intro para"]);
    groups = step.groups;
    step = streamingChunks("Intro para\n\nSecond\n\nThird gro", groups);
    expect([step.chunks, step.tail]).toEqual([["Intro para\n\nSecond"], "Third gro"]);
    groups = step.groups;
    step = streamingChunks("Intro para\n\nSecond\n\nThird grows\n\n```js\nx\n\ny", groups);
    expect(step.chunks).toEqual(["Intro para\n\nSecond", "Third grows"]);
    expect(step.tail).toBe("```js\nx\n\ny");
  });
});
