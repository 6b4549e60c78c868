// One file's unified diff read into hunks with line numbers, paired side by side, and the
// highlighter's output read back into plain tokens per line.
import { describe, expect, it } from "vitest";

import { highlightLines, languageOfPath } from "../lib/highlight";
import { parsePatch, splitRows, type DiffLine } from "../lib/unifiedDiff";

/** A line as "<kind> <old> <new> <text>", "-" for a number it does not have. */
const brief = (line: DiffLine) => `${line.kind[0]} ${line.old ?? "-"} ${line.new ?? "-"} ${line.text}${line.noNewline ? " \\" : ""}`;

const CASES: [string, string, string[][]][] = [
  ["a new file", "@@ -0,0 +1,2 @@\n+a\n+b\n", [["a - 1 a", "a - 2 b"]]],
  ["a deleted file", "--- a/x\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", [["r 1 - a", "r 2 - b"]]],
  ["counts left out (one line)", "@@ -3 +3 @@\n-x\n+y", [["r 3 - x", "a - 3 y"]]],
  ["two hunks, the second with its function", "@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -10,1 +10,2 @@ fn c()\n c\n+d\n", [["c 1 1 a", "r 2 - b", "a - 2 B"], ["c 10 10 c", "a - 11 d"]]],
  ["a context line whose space was trimmed", "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n", [["c 1 1 a", "c 2 2 ", "r 3 - b", "a - 3 c"]]],
  ["removed lines that look like a file header", "@@ -1,2 +1,1 @@\n--- comment\n+++ plus\n-x\n", [["r 1 - -- comment", "a - 1 ++ plus", "r 2 - x"]]],
  ["no newline at the end, CRLF", "@@ -1 +1 @@\r\n-a\r\n\\ No newline at end of file\r\n+a\r\n", [["r 1 - a \\", "a - 1 a"]]],
];

describe("parsePatch", () => {
  it.each(CASES)("%s", (_, patch, expected) => {
    expect(parsePatch(patch).map((hunk) => hunk.lines.map(brief))).toEqual(expected);
  });

  it("keeps each hunk's header line as git wrote it", () => {
    expect(parsePatch("@@ -10,1 +10,2 @@ fn c()\n c\n+d\n")[0]!.header).toBe("@@ -10,1 +10,2 @@ fn c()");
  });
});

describe("splitRows", () => {
  const rows = (patch: string) =>
    splitRows(parsePatch(patch)[0]!).map((row) => `${row.left ? brief(row.left) : "·"} | ${row.right ? brief(row.right) : "·"}`);

  it.each([
    ["a change pairs its removed and added lines", "@@ -1,3 +1,2 @@\n-a\n-b\n-c\n+A\n+B\n", ["r 1 - a | a - 1 A", "r 2 - b | a - 2 B", "r 3 - c | ·"]],
    ["context sits on both sides", "@@ -1,2 +1,3 @@\n x\n+y\n z\n", ["c 1 1 x | c 1 1 x", "· | a - 2 y", "c 2 3 z | c 2 3 z"]],
    ["an addition then a removal are two runs", "@@ -1,1 +1,1 @@\n+n\n-o\n", ["· | a - 1 n", "r 1 - o | ·"]],
  ])("%s", (_, patch, expected) => {
    expect(rows(patch)).toEqual(expected);
  });
});

describe("highlightLines", () => {
  it("reads highlight.js's output back into text tokens per line, classes carried over line ends", () => {
    const lines = highlightLines("const s = `a <b>\n& c`;\nlet x = 1 < 2;", "js");
    expect(lines.map((line) => line.map((token) => token.text).join(""))).toEqual(["const s = `a <b>", "& c`;", "let x = 1 < 2;"]);
    expect(lines[0]!.find((token) => token.text === "const")?.classes).toBe("hljs-keyword");
    expect(lines[1]![0]).toEqual({ text: "& c`", classes: "hljs-string" });
  });

  it("knows a bundled language by the file's extension, and only those", () => {
    expect(["src/main.rs", "ui/App.tsx", "Cargo.toml", "README.md", "Makefile", ".env"].map(languageOfPath)).toEqual(["rs", "tsx", "toml", null, null, null]);
  });
});
