// One file's unified diff (git's format: `@@ -a,b +c,d @@` hunks) as lines with their old and
// new line numbers, and the same hunks paired for a side-by-side view. Pure, tested in vitest.

export interface DiffLine {
  kind: "context" | "added" | "removed";
  text: string;
  /** The line's number in the old file (context and removed lines). */
  old?: number;
  /** The line's number in the new file (context and added lines). */
  new?: number;
  /** git's "\ No newline at end of file" followed this line. */
  noNewline?: boolean;
}

export interface Hunk {
  /** The `@@ … @@` line as git wrote it. */
  header: string;
  lines: DiffLine[];
}

/** A row of the side-by-side view: the old line on the left, the new on the right. */
export interface SplitRow {
  left?: DiffLine;
  right?: DiffLine;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of `patch`; the lines before the first `@@` (`diff --git`, `index`, `---`,
 *  `+++`) are the file's header and are left out. */
export function parsePatch(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  let hunk: Hunk | null = null;
  let oldLine = 0;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of patch.replace(/\r?\n$/, "").split(/\r?\n/)) {
    const header = HUNK.exec(line);
    if (header) {
      hunk = { header: line, lines: [] };
      hunks.push(hunk);
      oldLine = Number(header[1]);
      newLine = Number(header[3]);
      oldLeft = header[2] === undefined ? 1 : Number(header[2]);
      newLeft = header[4] === undefined ? 1 : Number(header[4]);
      continue;
    }
    if (!hunk) continue;
    const previous = hunk.lines[hunk.lines.length - 1];
    if (line.startsWith("\\")) {
      if (previous) previous.noNewline = true;
    } else if (line.startsWith("+") && newLeft > 0) {
      hunk.lines.push({ kind: "added", text: line.slice(1), new: newLine++ });
      newLeft -= 1;
    } else if (line.startsWith("-") && oldLeft > 0) {
      hunk.lines.push({ kind: "removed", text: line.slice(1), old: oldLine++ });
      oldLeft -= 1;
    } else if ((line.startsWith(" ") || line === "") && (oldLeft > 0 || newLeft > 0)) {
      // An empty line is a context line whose leading space was trimmed on the way.
      hunk.lines.push({ kind: "context", text: line.slice(1), old: oldLine++, new: newLine++ });
      oldLeft -= 1;
      newLeft -= 1;
    }
  }
  return hunks;
}

/** A hunk's rows side by side: context on both sides; each run of removed lines paired
 *  with the added lines that follow it, the longer run's rest against nothing. */
export function splitRows(hunk: Hunk): SplitRow[] {
  const rows: SplitRow[] = [];
  let removed: DiffLine[] = [];
  let added: DiffLine[] = [];
  const flush = () => {
    for (let index = 0; index < Math.max(removed.length, added.length); index += 1) {
      rows.push({ left: removed[index], right: added[index] });
    }
    removed = [];
    added = [];
  };
  for (const line of hunk.lines) {
    if (line.kind === "context") {
      flush();
      rows.push({ left: line, right: line });
    } else if (line.kind === "removed") {
      if (added.length > 0) flush();
      removed.push(line);
    } else {
      added.push(line);
    }
  }
  flush();
  return rows;
}
