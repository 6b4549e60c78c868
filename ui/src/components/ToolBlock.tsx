// One tool call as a sentence ("Wrote textutils.py", "Listed src/"), with what was sent and
// what came back folded under it; a code-sandbox run as a terminal block. The model's name for
// the tool and its raw JSON stay one click away, never the headline.
import type { Message } from "../generated/Message";
import type { ToolCall } from "../generated/ToolCall";
import type { LiveTool } from "../lib/chatState";
import { t } from "../lib/i18n";
import { sandboxRunTool } from "../lib/sandbox";
import { describeTool, type SentenceContext } from "../lib/toolSentence";
import { SandboxRun } from "./SandboxRun";
import { MessageImages } from "./ImageThumbnails";

type ToolMessage = Extract<Message, { role: "tool" }>;

function prettyArgs(args: unknown): string {
  if (typeof args === "string") {
    try {
      return JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      return args;
    }
  }
  return JSON.stringify(args, null, 2);
}

export interface ToolBlockProps {
  name: string;
  args: unknown;
  result?: string;
  error?: string;
  running: boolean;
  context?: SentenceContext;
}

export function ToolBlock(props: ToolBlockProps) {
  const sandboxTool = sandboxRunTool(props.name);
  if (sandboxTool !== null) return <SandboxRun tool={sandboxTool} {...props} />;
  const state = props.running ? "running" : props.error !== undefined ? "failed" : "done";
  const sentence = describeTool(props, props.context);
  return (
    <details class={`tool ${state}`} data-testid="tool-block">
      <summary>
        <span class="tool-sentence" data-testid="tool-sentence">
          {sentence.text}
        </span>
        {state !== "done" && <span class="tool-state">{toolState(state)}</span>}
      </summary>
      <p class="tool-raw small muted">
        {t("toolSentence.raw")}{" "}
        <code class="tool-name">{props.name}</code>
      </p>
      <pre class="tool-args">{prettyArgs(props.args)}</pre>
      {props.result !== undefined && <pre class="tool-result">{props.result}</pre>}
      {props.error !== undefined && <pre class="tool-error">{props.error}</pre>}
    </details>
  );
}

function toolState(state: "running" | "failed"): string {
  return state === "running" ? t("tool.running") : t("tool.failed");
}

/** A stored call with its result; the images the tool returned (kept in the chat's
 *  attachments) as thumbnails under it, in view whether the block is open or not. */
export function StoredTool({ call, result, context }: { call: ToolCall; result: ToolMessage | undefined; context?: SentenceContext }) {
  const text = result?.content;
  return (
    <>
      <ToolBlock
        name={call.name}
        args={call.arguments}
        result={result && !result.is_error ? text : undefined}
        error={result && result.is_error ? text : undefined}
        running={result === undefined}
        context={context}
      />
      <MessageImages attachments={result?.attachments} />
    </>
  );
}

export function LiveToolBlock({ tool, context }: { tool: LiveTool; context?: SentenceContext }) {
  return <ToolBlock name={tool.name} args={tool.args} result={tool.result} error={tool.error} running={!tool.done} context={context} />;
}
