// Entry point of the Preflight window.
import { render } from "preact";

import { App } from "./App";
import "./styles.css";

const root = document.getElementById("app");
if (!root) throw new Error("index.html has no #app element");
render(<App />, root);
