// Vite builds ui/ into ui/dist, which the Tauri shell embeds; Vitest runs the component
// tests in jsdom. Preact's JSX is compiled by esbuild (no framework plugin needed).
import { defineConfig } from "vitest/config";

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  // Relative asset paths: the window loads the files from the app's own protocol.
  base: "./",
  build: {
    target: "es2022",
    // No inline scripts or styles: the CSP allows only the app's own files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 400,
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/test/setup.ts"],
    // The theme test reads styles.css as text (`?raw`), which Vitest otherwise empties.
    css: { include: [/styles\.css/] },
  },
});
