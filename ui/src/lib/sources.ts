// What the window's screens work with, as the shell's commands (lib/api.ts): the message
// box's files, Settings → MCP servers and Settings → Providers. Each screen takes its source
// as a prop, so its tests give it a stand-in.
import type { FileSource } from "../components/Composer";
import type { McpSource } from "../components/McpServers";
import type { ProvidersSource } from "../components/NamedProviders";
import type { SkillsSource } from "../components/Skills";
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
/** Settings → Skills: the open chat's skills (else the user's own), and the folder of the
 *  user's own beside `config.toml`. One source per chat, so the section reads again when the
 *  chat changes and not on every render. */
const skillSources = new Map<string, SkillsSource>();
export function skillsOf(chatId: string | null, configPath: string): SkillsSource {
  const key = `${chatId ?? ""}\n${configPath}`;
  let source = skillSources.get(key);
  if (!source) {
    const folder = configPath.replace(/config\.toml$/, "skills");
    source = { load: () => api.listSkills(chatId), folder };
    skillSources.set(key, source);
  }
  return source;
}
