// Entry point of the Preflight window: renders the shell; the chat UI arrives with the desktop issue.

const app = document.querySelector<HTMLDivElement>("#app");
if (!app) {
  throw new Error("index.html has no #app element");
}

const title = document.createElement("h1");
title.textContent = "Preflight";
app.replaceChildren(title);
