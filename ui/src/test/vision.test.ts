// Whether the chat's model sees images, read from the engine's model list: by the row of the
// chosen model, else by its provider's (their `vision` is the provider's setting), else
// unknown (the engine then judges); the planner's model counts when the message plans.
import { describe, expect, it } from "vitest";

import type { ModelList } from "../generated/ModelList";
import { blindModel, nextMessagePlans, visionOf } from "../lib/vision";
import { user, view } from "./fixtures";

const option = (provider: string, model: string, vision: boolean) => ({ provider, model, vision, tools: true, configured: true });
const state = (name: string, model: string) => ({ name, kind: "openai", base_url: "http://127.0.0.1:1/v1", model });
const LIST: ModelList = {
  data: [option("default", "scripted", false), option("cloud", "gpt-4o", true), option("cloud", "gpt-4o-mini", true)],
  providers: [state("default", "scripted"), state("cloud", "gpt-4o"), state("down", "llama3.1:8b")],
};

describe("vision", () => {
  it.each([
    ["the default (null) by its provider's own model", null, { sees: false, model: "scripted" }],
    ["a listed model", { provider: "cloud", model: "gpt-4o" }, { sees: true, model: "gpt-4o" }],
    ["an unlisted model of a listed provider", { provider: "cloud", model: "o3" }, { sees: true, model: "o3" }],
    ["a provider with no row (its server did not answer)", { provider: "down", model: "llama3.1:8b" }, { sees: null, model: "llama3.1:8b" }],
  ])("%s", (_, choice, expected) => {
    expect(visionOf(LIST, choice, "settings-model")).toEqual(expected);
  });

  it("cannot tell before the list is read, and names the settings' model for the default", () => {
    expect(visionOf(null, null, "qwen2.5:7b")).toEqual({ sees: null, model: "qwen2.5:7b" });
  });

  it("a plan-mode chat's first message goes to the planner; its model counts then", () => {
    const fresh = { ...view([]), model: { provider: "cloud", model: "gpt-4o" }, planner_model: { provider: "default", model: "scripted" } };
    expect(nextMessagePlans(fresh)).toBe(true);
    expect(blindModel(LIST, fresh, "")).toEqual({ sees: false, model: "scripted" });
    const started = { ...fresh, messages: [user("u1", "Add an export")] };
    expect(nextMessagePlans(started)).toBe(false);
    expect(blindModel(LIST, started, ""), "the executor sees images").toBeNull();
    expect(blindModel(LIST, { ...started, model: null }, "")).toEqual({ sees: false, model: "scripted" });
    expect(blindModel(null, { ...started, model: null }, ""), "unknown: the engine judges").toBeNull();
  });
});
