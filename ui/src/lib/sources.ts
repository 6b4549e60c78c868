// What the window's screens work with, as the shell's commands (lib/api.ts): the message
// box's files, Settings → MCP servers and Settings → Providers. Each screen takes its source
// as a prop, so its tests give it a stand-in.
import type { FileSource } from "../components/Composer";
import type { McpSource } from "../components/McpServers";
import type { ProvidersSource } from "../components/NamedProviders";
import { api } from "./api";

/** The message box's files: the native picker, the engine's checks, the window's drops, and
 *  the thumbnails of the image files the user offered. */
export const FILES: FileSource = { pick: api.pickFiles, check: api.checkFiles, subscribe: api.onFileDrop, preview: api.imagePreview };
/** Settings → MCP servers: the engine's commands. */
export const MCP: McpSource = {
  load: api.mcpSettings,
  save: api.saveMcpServer,
  remove: api.removeMcpServer,
  restart: api.restartMcpServer,
  test: api.testMcpServer,
  signIn: api.mcpSignIn,
  signOut: api.mcpSignOut,
};
/** Settings → Providers: the engine's commands. */
export const PROVIDERS: ProvidersSource = {
  load: api.namedProviders,
  save: api.saveNamedProvider,
  remove: api.removeNamedProvider,
  check: api.checkProvider,
};
