// Export and import of chats from the window (DESIGN §15): the native dialog first (the shell
// opens it and answers the path chosen, or null when cancelled), then the engine's export or
// import of that path. A refusal is said in words: the window's lead, then the engine's own
// reason (a newer format, not a chat export, over the size cap, a file it cannot write).
import type { ChatView } from "../generated/ChatView";
import type { ExportFormat } from "../generated/ExportFormat";
import { asApiError } from "./api";
import { describeError } from "./errorText";
import { t } from "./i18n";

/** The engine's reason: its own words for a refused file (they name what is wrong with it),
 *  the code's lead first for anything else. */
function reason(error: unknown): string {
  const failure = asApiError(error);
  return failure.code === "ERR_BAD_REQUEST" ? failure.message : describeError(failure);
}

/** The shell's side of it (`api` in the window; a stand-in in tests). */
export interface TransferSource {
  chooseExportFile: (chatId: string, format: ExportFormat) => Promise<string | null>;
  exportChat: (chatId: string, format: ExportFormat, path: string) => Promise<void>;
  chooseImportFile: () => Promise<string | null>;
  importChat: (path: string) => Promise<ChatView>;
}

/** Exports the chat to the file the user chooses; the path written, or null when the dialog
 *  was cancelled. Rejects with an `Error` whose message says why, in words. */
export async function exportChatTo(source: TransferSource, chatId: string, format: ExportFormat): Promise<string | null> {
  try {
    const path = await source.chooseExportFile(chatId, format);
    if (path === null) return null;
    await source.exportChat(chatId, format, path);
    return path;
  } catch (error) {
    throw new Error(t("transfer.exportFailed", { detail: reason(error) }));
  }
}

/** What an import came to: the new chat, nothing (cancelled), or why not, in words. */
export type Imported = { kind: "imported"; view: ChatView } | { kind: "cancelled" } | { kind: "refused"; text: string };

export async function importChatFrom(source: TransferSource): Promise<Imported> {
  try {
    const path = await source.chooseImportFile();
    if (path === null) return { kind: "cancelled" };
    return { kind: "imported", view: await source.importChat(path) };
  } catch (error) {
    return { kind: "refused", text: t("transfer.importFailed", { detail: reason(error) }) };
  }
}
