// A code-sandbox run as a terminal block, headed by a sentence ("Ran python3 -m unittest —
// exit 0"): what ran, the exit code, stdout and stderr, a timed-out mark; long output starts
// collapsed. The output is coloured by the exit code: a passing run's stderr (where unittest
// and pytest report) is not drawn as an error; a non-zero exit is. The unconfined warning the sandbox gives is
// shown on the block, never dropped, and so is a `.git` or `.dwp` the run planted and the
// sandbox renamed aside (quarantined): the block then stays open.
import { t } from "../lib/i18n";
import { describeRun, outputLines, parseRun, tookText } from "../lib/sandbox";
import { runCommand, shortened } from "../lib/toolSentence";

/** Output longer than this many lines starts collapsed. */
export const COLLAPSE_LINES = 12;

export interface SandboxRunProps {
  tool: string;
  args: unknown;
  result?: string;
  error?: string;
  running: boolean;
}

export function SandboxRun({ tool, args, result, error, running }: SandboxRunProps) {
  const run = result !== undefined ? parseRun(result) : null;
  const failed = error !== undefined || (run !== null && (run.exitCode !== 0 || run.timedOut));
  const state = running ? "running" : failed ? "failed" : "done";
  const quarantined = run === null ? [] : run.notes.filter(isQuarantine);
  const notes = run === null ? [] : run.notes.filter((note) => !isQuarantine(note));
  const long = run !== null && outputLines(run) > COLLAPSE_LINES && quarantined.length === 0;
  const { command, sentence } = runCommand(tool, args);
  const [before, after] = sentence("\u0001").split("\u0001");
  const whole = describeRun(tool, args);
  const passed = run !== null && run.exitCode === 0 && !run.timedOut;
  return (
    <details class={`terminal ${state}`} data-testid="sandbox-run" open={!long}>
      <summary>
        <span class="tool-sentence" data-testid="tool-sentence">
          {before}
          <code class="terminal-command">{shortened(command)}</code>
          {after}
        </span>
        {running && <span class="terminal-state">{t("sandbox.running")}</span>}
        {run && (
          <>
            {" — "}
            <span class={`exit-code ${passed ? "ok" : "bad"}`} data-testid="exit-code">
              {t("gate.exit", { code: run.exitCode })}
              {run.millis !== null && ` ${t("gate.took", { time: tookText(run.millis) })}`}
            </span>
          </>
        )}
        {run?.timedOut && (
          <span class="timed-out" data-testid="timed-out">
            {t("sandbox.timedOut")}
          </span>
        )}
        {long && <span class="terminal-state">{t("sandbox.lines", { count: outputLines(run) })}</span>}
      </summary>
      {shortened(command) !== command.trim() && <pre class="terminal-input">{whole}</pre>}
      {run?.banner && <p class="terminal-warning" data-testid="unconfined">{run.banner}</p>}
      {quarantined.length > 0 && (
        <div class="terminal-warning" data-testid="quarantined">
          <p>{t("sandbox.quarantined")}</p>
          {quarantined.map((note) => <p key={note}>{note}</p>)}
        </div>
      )}
      {notes.map((note) => <p class="terminal-note" key={note}>{note}</p>)}
      {run && run.stdout !== "" && <pre class="terminal-out">{run.stdout}</pre>}
      {run && run.stderr !== "" && <pre class={passed ? "terminal-stderr" : "terminal-err"}>{run.stderr}</pre>}
      {run?.truncated && <p class="terminal-note">{t("sandbox.truncated")}</p>}
      {result !== undefined && run === null && <pre class="terminal-out">{result}</pre>}
      {error !== undefined && <pre class="terminal-err">{error}</pre>}
    </details>
  );
}

/** A note of the sandbox's quarantine (crates/sandbox/src/quarantine.rs words it). */
function isQuarantine(note: string): boolean {
  return note.startsWith("QUARANTINED ");
}
