import { describe, expect, it } from "vitest";

import { editorMode, entryFromFields, entryFromRemote, fieldsFromEntry, pastedEntry, remoteFromEntry } from "../lib/mcpEntry";

describe("mcp.json entries in the editor", () => {
  it("fields make an entry: one argument per line, NAME=value per line", () => {
    const parsed = entryFromFields({ name: " docs ", command: "npx", args: "-y\n\n@scope/server\n", env: "TOKEN=a=b\nMODE=fast", readWhilePlanning: true });
    expect(parsed).toEqual({ ok: true, name: "docs", entry: { command: "npx", args: ["-y", "@scope/server"], env: { TOKEN: "a=b", MODE: "fast" }, readWhilePlanning: true } });
    expect(fieldsFromEntry("docs", { command: "npx", args: ["-y", "@scope/server"], env: { TOKEN: "a=b" } })).toEqual({ name: "docs", command: "npx", args: "-y\n@scope/server", env: "TOKEN=a=b", readWhilePlanning: false });
  });

  it("says what is missing or wrong", () => {
    expect(entryFromFields({ name: "", command: "x", args: "", env: "", readWhilePlanning: false })).toEqual({ ok: false, error: "A server needs a name." });
    expect(entryFromFields({ name: "a", command: " ", args: "", env: "", readWhilePlanning: false })).toEqual({ ok: false, error: "A server needs a command." });
    expect(entryFromFields({ name: "a", command: "x", args: "", env: "JUSTANAME", readWhilePlanning: false })).toEqual({ ok: false, error: 'Environment line "JUSTANAME" is not NAME=value.' });
  });

  it("takes an entry pasted in the formats other clients use", () => {
    const entry = { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] };
    expect(pastedEntry(JSON.stringify({ mcpServers: { everything: entry } }), "")).toEqual({ ok: true, name: "everything", entry });
    expect(pastedEntry(JSON.stringify({ everything: entry }), "")).toEqual({ ok: true, name: "everything", entry });
    expect(pastedEntry(JSON.stringify(entry), "mine")).toEqual({ ok: true, name: "mine", entry });
    expect(pastedEntry(JSON.stringify(entry), "")).toEqual({ ok: false, error: "Give the server a name." });
    expect(pastedEntry('{"a": {}, "b": {}}', "")).toMatchObject({ ok: false, error: expect.stringContaining("more than one") });
    expect(pastedEntry("[1]", "")).toEqual({ ok: false, error: "Not a JSON object." });
    expect(pastedEntry("{nope", "")).toMatchObject({ ok: false, error: expect.stringContaining("Not JSON") });
  });

  it("takes a remote entry: pasted with its url and headers, or from the URL fields", () => {
    const entry = { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" } };
    expect(pastedEntry(JSON.stringify(entry), "docs")).toEqual({ ok: true, name: "docs", entry });
    expect(pastedEntry(JSON.stringify({ mcpServers: { docs: { type: "http", ...entry } } }), "")).toEqual({ ok: true, name: "docs", entry: { type: "http", ...entry } });
    const named = { name: "docs", command: "", args: "", env: "", readWhilePlanning: false };
    expect(entryFromRemote(named, { url: " https://mcp.example.com/mcp ", headers: "Authorization: Bearer ${env:TOKEN}\n" })).toEqual({ ok: true, name: "docs", entry });
    expect(entryFromRemote(named, { url: "https://x", headers: "no colon" })).toEqual({ ok: false, error: 'Header line "no colon" is not Name: value.' });
    expect(entryFromRemote(named, { url: " ", headers: "" })).toEqual({ ok: false, error: "A remote server needs a URL." });
    expect(remoteFromEntry(entry)).toEqual({ url: "https://mcp.example.com/mcp", headers: "Authorization: Bearer ${env:TOKEN}" });
  });

  it("edits an entry by its fields only when they keep every key", () => {
    expect(editorMode({ command: "npx", args: [], env: {} })).toBe("fields");
    expect(editorMode({ url: "https://x", headers: {}, readWhilePlanning: true })).toBe("url");
    expect(editorMode({ url: "https://x", oauth: { clientId: "a" } })).toBe("paste");
    expect(editorMode({ type: "stdio", command: "x" })).toBe("paste");
  });
});
