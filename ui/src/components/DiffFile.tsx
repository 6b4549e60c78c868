// One file of a workspace diff: its path (old → new for a rename), status and figures, then
// its hunks, unified or side by side, with line numbers, added and removed lines coloured and
// the code highlighted by the file's extension. A binary or too large file is summarised.
// The workspace's text is drawn as text nodes only.
import { useMemo } from "preact/hooks";

import type { FileChange } from "../generated/FileChange";
import { highlightLines, languageOfPath, type Token } from "../lib/highlight";
import { t } from "../lib/i18n";
import { parsePatch, splitRows, type DiffLine, type Hunk } from "../lib/unifiedDiff";

export type DiffMode = "unified" | "split";

/** Past this many lines a file is shown without highlighting (it stays quick to open). */
const HIGHLIGHT_MAX_LINES = 3000;

/** The file's status, in words. */
export function fileStatusText(status: string): string {
  switch (status) {
    case "added":
      return t("checkpoints.status.added");
    case "deleted":
      return t("checkpoints.status.deleted");
    case "renamed":
      return t("checkpoints.status.renamed");
    case "type_changed":
      return t("checkpoints.status.typeChanged");
    default:
      return t("checkpoints.status.modified");
  }
}

/** Each line's tokens: the old side (context and removed lines) and the new side (context and
 *  added lines) of a hunk are highlighted as runs, so a construct over several lines reads right. */
function hunkTokens(hunks: Hunk[], language: string | null): Map<DiffLine, Token[]> {
  const tokens = new Map<DiffLine, Token[]>();
  if (language === null || hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0) > HIGHLIGHT_MAX_LINES) return tokens;
  for (const hunk of hunks) {
    for (const side of ["removed", "added"] as const) {
      const lines = hunk.lines.filter((line) => line.kind !== (side === "removed" ? "added" : "removed"));
      const highlighted = highlightLines(lines.map((line) => line.text).join("\n"), language);
      lines.forEach((line, index) => {
        if (line.kind === side || (side === "added" && line.kind === "context")) tokens.set(line, highlighted[index] ?? []);
      });
    }
  }
  return tokens;
}

function Code({ line, tokens }: { line: DiffLine; tokens: Map<DiffLine, Token[]> }) {
  const highlighted = tokens.get(line);
  return (
    <>
      <span class="diff-sign" aria-hidden="true">
        {line.kind === "added" ? "+" : line.kind === "removed" ? "−" : " "}
      </span>
      {highlighted ? highlighted.map((token, index) => (token.classes ? <span key={index} class={token.classes}>{token.text}</span> : token.text)) : line.text}
      {line.noNewline && <span class="diff-no-newline small muted"> {t("checkpoints.noNewline")}</span>}
    </>
  );
}

function UnifiedHunk({ hunk, tokens }: { hunk: Hunk; tokens: Map<DiffLine, Token[]> }) {
  return (
    <tbody>
      <tr class="diff-hunk">
        <td colSpan={3}>{hunk.header}</td>
      </tr>
      {hunk.lines.map((line, index) => (
        <tr key={index} class={`diff-line ${line.kind}`}>
          <td class="diff-ln">{line.old ?? ""}</td>
          <td class="diff-ln">{line.new ?? ""}</td>
          <td class="diff-code">
            <Code line={line} tokens={tokens} />
          </td>
        </tr>
      ))}
    </tbody>
  );
}

function SplitHunk({ hunk, tokens }: { hunk: Hunk; tokens: Map<DiffLine, Token[]> }) {
  const side = (line: DiffLine | undefined, number: number | undefined) => (
    <>
      <td class={`diff-ln ${line ? line.kind : "empty"}`}>{number ?? ""}</td>
      <td class={`diff-code ${line ? line.kind : "empty"}`}>{line && <Code line={line} tokens={tokens} />}</td>
    </>
  );
  return (
    <tbody>
      <tr class="diff-hunk">
        <td colSpan={4}>{hunk.header}</td>
      </tr>
      {splitRows(hunk).map((row, index) => (
        <tr key={index} class="diff-line">
          {side(row.left, row.left?.old)}
          {side(row.right, row.right?.new)}
        </tr>
      ))}
    </tbody>
  );
}

function Body({ file, mode }: { file: FileChange; mode: DiffMode }) {
  const hunks = useMemo(() => (file.patch ? parsePatch(file.patch) : []), [file.patch]);
  const tokens = useMemo(() => hunkTokens(hunks, languageOfPath(file.path)), [hunks, file.path]);
  if (file.binary) {
    return (
      <p class="diff-note small muted" data-testid="diff-binary">
        {t("checkpoints.binary")}
      </p>
    );
  }
  if (file.too_large || !file.patch) {
    return (
      <p class="diff-note small muted" data-testid={file.too_large ? "diff-too-large" : "diff-no-lines"}>
        {file.too_large ? t("checkpoints.tooLarge", { additions: file.additions, deletions: file.deletions }) : t("checkpoints.noLines")}
      </p>
    );
  }
  return (
    // Focusable, so a keyboard can scroll a long line into view.
    <div class="diff-scroll" tabIndex={0} role="region" aria-label={file.path}>
      <table class={`diff-table ${mode}`} data-testid={`diff-table-${mode}`}>
        {mode === "split" && (
          <colgroup>
            <col class="diff-ln-col" />
            <col />
            <col class="diff-ln-col" />
            <col />
          </colgroup>
        )}
        {hunks.map((hunk, index) => (mode === "split" ? <SplitHunk key={index} hunk={hunk} tokens={tokens} /> : <UnifiedHunk key={index} hunk={hunk} tokens={tokens} />))}
      </table>
    </div>
  );
}

/** `open`: shown with its lines (the default), or folded to its head line. */
export function DiffFile({ file, mode, open = true }: { file: FileChange; mode: DiffMode; open?: boolean }) {
  return (
    <details class="diff-file" data-testid="diff-file" data-status={file.status} open={open}>
      <summary class="diff-file-head">
        <span class="diff-path" data-testid="diff-file-path">
          {file.old_path && file.old_path !== file.path ? `${file.old_path} → ${file.path}` : file.path}
        </span>{" "}
        <span class={`diff-status ${file.status}`}>{fileStatusText(file.status)}</span>{" "}
        <span class="diff-figures">
          <span class="diff-plus">+{file.additions}</span> <span class="diff-minus">−{file.deletions}</span>
        </span>
      </summary>
      <Body file={file} mode={mode} />
    </details>
  );
}
