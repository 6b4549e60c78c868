// Settings → Providers (issue 50): the list of named providers with their prices; add one,
// its problems said at the fields before anything is sent; the engine's refusal said, the
// form kept; test a provider's connection; remove one, asked twice.
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { NamedProviders, providerProblems, saveOf, type ProviderForm, type ProvidersSource } from "../components/NamedProviders";
import type { NamedProviderView } from "../generated/NamedProviderView";

const CLOUD: NamedProviderView = {
  name: "cloud",
  provider: "openai",
  base_url: "https://api.openai.com/v1",
  model: "gpt-4o",
  price_input_per_mtok: 2.5,
  price_output_per_mtok: 10,
  vision: null,
  api_key_stored_in: "the kernel keyring",
};

function source(over: Partial<ProvidersSource> = {}) {
  const list = [CLOUD];
  return {
    load: vi.fn(async () => list),
    save: vi.fn(async () => list),
    remove: vi.fn(async () => [] as NamedProviderView[]),
    check: vi.fn(async () => ({ models: ["gpt-4o", "gpt-4o-mini"], model_served: true })),
    ...over,
  };
}

const FORM: ProviderForm = { name: "local", provider: "openai", base_url: "http://127.0.0.1:1234/v1", model: "qwen", api_key: "", price_input: "", price_output: "", vision: true };

describe("the provider form's own problems", () => {
  it.each<[Partial<ProviderForm>, string[]]>([
    [{}, []],
    [{ name: "" }, ["name"]],
    [{ name: "Local Box" }, ["name"]],
    [{ name: "default" }, ["name"]],
    [{ name: "x".repeat(41) }, ["name"]],
    [{ name: "cloud" }, ["name"]],
    [{ base_url: "127.0.0.1:1234" }, ["base_url"]],
    [{ model: " " }, ["model"]],
    [{ price_input: "-1", price_output: "ten" }, ["price_input", "price_output"]],
    [{ price_input: "2,5", price_output: "0" }, []],
  ])("%j → %j", (change, fields) => {
    expect(Object.keys(providerProblems({ ...FORM, ...change }, ["cloud"])).sort()).toEqual(fields.sort());
  });

  it("sends prices as numbers, a blank key and a blank price as none, and only a 'no' for images", () => {
    expect(saveOf({ ...FORM, name: " local ", price_input: "2,5", price_output: "", api_key: " ", vision: false })).toEqual({
      name: "local",
      provider: "openai",
      base_url: "http://127.0.0.1:1234/v1",
      model: "qwen",
      api_key: undefined,
      price_input_per_mtok: 2.5,
      price_output_per_mtok: undefined,
      vision: false,
    });
    expect(saveOf({ ...FORM, api_key: "sk-1" })).toMatchObject({ api_key: "sk-1", vision: undefined });
  });
});

describe("Settings → Providers", () => {
  it("lists each provider with its model, prices, images and key", async () => {
    render(<NamedProviders source={source()} onChanged={vi.fn()} />);
    const item = await screen.findByTestId("named-provider");
    expect(item.textContent).toContain("gpt-4o");
    expect(screen.getByTestId("provider-prices").textContent).toBe("$2.50 in · $10.00 out per million tokens · key in the kernel keyring");
    expect(item.textContent).toContain("sees images");
  });

  it("says the form's problems at their fields and sends nothing", async () => {
    const src = source();
    render(<NamedProviders source={src} onChanged={vi.fn()} />);
    fireEvent.click(await screen.findByTestId("provider-add"));
    fireEvent.input(screen.getByTestId("provider-name"), { target: { value: "cloud" } });
    fireEvent.input(screen.getByTestId("provider-price-input"), { target: { value: "cheap" } });
    fireEvent.click(screen.getByTestId("provider-save"));
    expect(screen.getByTestId("provider-problem-name").textContent).toContain("There is a provider named cloud already");
    expect(screen.getByTestId("provider-problem-model").textContent).toContain("Name the model");
    expect(screen.getByTestId("provider-problem-price_input").textContent).toContain("number of dollars");
    expect(screen.getByTestId("provider-name").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByTestId("provider-name").getAttribute("aria-describedby")).toBe("provider-problem-name");
    expect(src.save).not.toHaveBeenCalled();
  });

  it("saves a new provider and says the list changed", async () => {
    const src = source();
    const onChanged = vi.fn();
    render(<NamedProviders source={src} onChanged={onChanged} />);
    fireEvent.click(await screen.findByTestId("provider-add"));
    fireEvent.input(screen.getByTestId("provider-name"), { target: { value: "local" } });
    fireEvent.input(screen.getByTestId("provider-base-url"), { target: { value: "http://127.0.0.1:1234/v1" } });
    fireEvent.input(screen.getByTestId("provider-model"), { target: { value: "qwen" } });
    fireEvent.input(screen.getByTestId("provider-price-output"), { target: { value: "0.6" } });
    fireEvent.click(screen.getByTestId("provider-vision"));
    fireEvent.click(screen.getByTestId("provider-save"));
    await waitFor(() => expect(onChanged).toHaveBeenCalled());
    expect(src.save).toHaveBeenCalledWith({ name: "local", provider: "openai", base_url: "http://127.0.0.1:1234/v1", model: "qwen", api_key: undefined, price_input_per_mtok: undefined, price_output_per_mtok: 0.6, vision: false });
    expect(screen.queryByTestId("provider-editor")).toBeNull();
  });

  it("keeps the form and says nothing was saved when the engine refuses", async () => {
    const onChanged = vi.fn();
    const src = source({ save: vi.fn(async () => Promise.reject({ code: "ERR_BAD_REQUEST", message: "config.toml, line 9: base_url is not a URL" })) });
    render(<NamedProviders source={src} onChanged={onChanged} />);
    fireEvent.click(await screen.findByTestId("provider-edit"));
    expect((screen.getByTestId("provider-name") as HTMLInputElement).readOnly).toBe(true);
    expect((screen.getByTestId("provider-price-input") as HTMLInputElement).value).toBe("2.5");
    fireEvent.click(screen.getByTestId("provider-save"));
    const said = await screen.findByTestId("provider-save-error");
    expect(said.textContent).toContain("Nothing was saved");
    expect(said.textContent).toContain("line 9");
    expect(screen.getByTestId("provider-editor")).toBeTruthy();
    expect(onChanged).not.toHaveBeenCalled();
  });

  it("tests a listed provider's connection with its own settings", async () => {
    const src = source();
    render(<NamedProviders source={src} onChanged={vi.fn()} />);
    await screen.findByTestId("named-provider");
    fireEvent.click(screen.getByTestId("test-connection"));
    expect((await screen.findByTestId("connection-ok")).textContent).toContain("serves 2 models");
    expect(src.check).toHaveBeenCalledWith({ provider: "openai", base_url: "https://api.openai.com/v1", model: "gpt-4o", plan_mode: false, auto_approve: false, api_key: undefined });
  });

  it("removes a provider only when asked twice", async () => {
    const src = source();
    const onChanged = vi.fn();
    render(<NamedProviders source={src} onChanged={onChanged} />);
    fireEvent.click(await screen.findByTestId("provider-remove"));
    expect(src.remove).not.toHaveBeenCalled();
    fireEvent.click(screen.getByText("Keep"));
    fireEvent.click(screen.getByTestId("provider-remove"));
    fireEvent.click(screen.getByTestId("provider-remove-confirm"));
    await waitFor(() => expect(onChanged).toHaveBeenCalled());
    expect(src.remove).toHaveBeenCalledWith("cloud");
    expect(screen.queryByTestId("named-provider")).toBeNull();
    expect(screen.getByText("None yet: chats use the provider above.")).toBeTruthy();
  });
});
