import { describe, expect, it } from "vitest";

import { asApiError, isErrorCode } from "../lib/api";
import { applyEvent, initialState } from "../lib/chatState";
import { view } from "./fixtures";

describe("errors", () => {
  it("knows every code the engine sends, the provider's included", () => {
    expect(isErrorCode("ERR_PLAN_PENDING")).toBe(true);
    expect(isErrorCode("ERR_PROVIDER_RATE_LIMITED")).toBe(true);
    expect(isErrorCode("ERR_NO_SUCH_CODE")).toBe(false);
    expect(isErrorCode(404)).toBe(false);
  });

  it("keeps a rejection of our shape and makes anything else internal", () => {
    const limited = { code: "ERR_PROVIDER_RATE_LIMITED", message: "slow down" };
    expect(asApiError(limited)).toEqual(limited);
    expect(asApiError({ code: "ERR_NO_SUCH_CODE", message: "odd" })).toEqual({ code: "ERR_INTERNAL", message: "odd" });
    expect(asApiError("boom")).toEqual({ code: "ERR_INTERNAL", message: "boom" });
  });

  it("shows an error event with its own code", () => {
    const state = applyEvent(initialState(view([], "executing"), []), {
      type: "error",
      code: "ERR_CONTEXT_TOO_LONG",
      message: "too long",
    });
    expect(state.error).toEqual({ code: "ERR_CONTEXT_TOO_LONG", message: "too long" });
  });
});
