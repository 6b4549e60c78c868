// A minimal W3C WebDriver client over fetch: what the end-to-end tests need to drive the
// Tauri window through tauri-driver (sessions, elements, clicks, keys, scripts). Screenshots
// come from the X display instead (harness.mjs).

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
export const KEYS = { enter: "\uE007", backspace: "\uE003", up: "\uE013", control: "\uE009", escape: "\uE00C", null: "\uE000" };

export class WebDriverError extends Error {
  constructor(status, value) {
    super(`WebDriver ${status}: ${value?.error ?? ""} ${value?.message ?? JSON.stringify(value)}`);
    this.status = status;
    this.error = value?.error;
  }
}

async function request(base, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new WebDriverError(response.status, json.value);
  return json.value;
}

export class Element {
  constructor(session, id, selector) {
    this.session = session;
    this.id = id;
    this.selector = selector;
  }
  #path(suffix) {
    return `/element/${this.id}${suffix}`;
  }
  click() {
    return this.session.command("POST", this.#path("/click"), {});
  }
  type(text) {
    return this.session.command("POST", this.#path("/value"), { text });
  }
  clear() {
    return this.session.command("POST", this.#path("/clear"), {});
  }
  text() {
    return this.session.command("GET", this.#path("/text"));
  }
  property(name) {
    return this.session.command("GET", this.#path(`/property/${name}`));
  }
  attribute(name) {
    return this.session.command("GET", this.#path(`/attribute/${name}`));
  }
}

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  /** Starts the application at `application` (an absolute path) in a new session. */
  static async start(base, application) {
    const capabilities = { alwaysMatch: { browserName: "wry", "tauri:options": { application } } };
    const value = await request(base, "POST", "/session", { capabilities });
    return new Session(base, value.sessionId);
  }

  command(method, path, body) {
    return request(this.base, method, `/session/${this.id}${path}`, body);
  }

  async find(selector) {
    const value = await this.command("POST", "/element", { using: "css selector", value: selector });
    return new Element(this, value[ELEMENT], selector);
  }

  async findAll(selector) {
    const values = await this.command("POST", "/elements", { using: "css selector", value: selector });
    return values.map((value) => new Element(this, value[ELEMENT], selector));
  }

  /** Runs `script` (a function body) in the page and returns its value. */
  execute(script, args = []) {
    return this.command("POST", "/execute/sync", { script, args });
  }

  /**
   * Runs `script` (a function body) in the page and returns what it passes to its last
   * argument, the callback WebDriver adds; fails after the session's script timeout (30 s).
   */
  executeAsync(script, args = []) {
    return this.command("POST", "/execute/async", { script, args });
  }

  /** `modifier`+`key` (e.g. Control+K) wherever the focus is. */
  chord(modifier, key) {
    const steps = [
      { type: "keyDown", value: modifier },
      { type: "keyDown", value: key },
      { type: "keyUp", value: key },
      { type: "keyUp", value: modifier },
    ];
    return this.command("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions: steps }] });
  }

  /** Presses and releases `key` wherever the focus is. */
  press(key) {
    const actions = [{ type: "key", id: "keyboard", actions: [{ type: "keyDown", value: key }, { type: "keyUp", value: key }] }];
    return this.command("POST", "/actions", { actions });
  }

  async end() {
    await request(this.base, "DELETE", `/session/${this.id}`).catch(() => {});
  }
}
