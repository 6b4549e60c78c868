// An engine error as the window says it: the lead text of its stable code in the window's
// language, then the engine's own message (naming the file, key, server or status) as detail.
import type { ApiError } from "../generated/ApiError";
import type { ErrorCode } from "../generated/ErrorCode";
import { t } from "./i18n";

/** What went wrong, by code, in a sentence a user reads. */
export function errorLead(code: ErrorCode): string {
  switch (code) {
    case "ERR_UNAUTHORIZED":
      return t("errors.ERR_UNAUTHORIZED");
    case "ERR_BAD_REQUEST":
      return t("errors.ERR_BAD_REQUEST");
    case "ERR_EMPTY_ANSWER":
      return t("errors.ERR_EMPTY_ANSWER");
    case "ERR_UNKNOWN_QUESTION":
      return t("errors.ERR_UNKNOWN_QUESTION");
    case "ERR_NOT_FOUND":
      return t("errors.ERR_NOT_FOUND");
    case "ERR_PLAN_PENDING":
      return t("errors.ERR_PLAN_PENDING");
    case "ERR_TURN_ACTIVE":
      return t("errors.ERR_TURN_ACTIVE");
    case "ERR_NO_QUESTIONS":
      return t("errors.ERR_NO_QUESTIONS");
    case "ERR_NO_PLAN":
      return t("errors.ERR_NO_PLAN");
    case "ERR_NOTHING_LEFT":
      return t("errors.ERR_NOTHING_LEFT");
    case "ERR_CHANGE_ANSWERED":
      return t("errors.ERR_CHANGE_ANSWERED");
    case "ERR_CHANGE_STALE":
      return t("errors.ERR_CHANGE_STALE");
    case "ERR_UNCONFINED":
      return t("errors.ERR_UNCONFINED");
    case "ERR_VENV_ADOPTABLE":
      return t("errors.ERR_VENV_ADOPTABLE");
    case "ERR_VENV_FOREIGN":
      return t("errors.ERR_VENV_FOREIGN");
    case "ERR_PROVIDER":
      return t("errors.ERR_PROVIDER");
    case "ERR_PROVIDER_RATE_LIMITED":
      return t("errors.ERR_PROVIDER_RATE_LIMITED");
    case "ERR_CONTEXT_TOO_LONG":
      return t("errors.ERR_CONTEXT_TOO_LONG");
    case "ERR_PROVIDER_UNAUTHORIZED":
      return t("errors.ERR_PROVIDER_UNAUTHORIZED");
    case "ERR_PROVIDER_UNAVAILABLE":
      return t("errors.ERR_PROVIDER_UNAVAILABLE");
    case "ERR_PROVIDER_TIMEOUT":
      return t("errors.ERR_PROVIDER_TIMEOUT");
    case "ERR_PROVIDER_STREAM_CUT":
      return t("errors.ERR_PROVIDER_STREAM_CUT");
    case "ERR_PROVIDER_REJECTED":
      return t("errors.ERR_PROVIDER_REJECTED");
    case "ERR_PROVIDER_BAD_RESPONSE":
      return t("errors.ERR_PROVIDER_BAD_RESPONSE");
    case "ERR_CANCELLED":
      return t("errors.ERR_CANCELLED");
    case "ERR_STEP_LIMIT":
      return t("errors.ERR_STEP_LIMIT");
    case "ERR_MCP_NOT_INSTALLED":
      return t("errors.ERR_MCP_NOT_INSTALLED");
    case "ERR_MCP_SIGN_IN":
      return t("errors.ERR_MCP_SIGN_IN");
    case "ERR_PLAN_FILES":
      return t("errors.ERR_PLAN_FILES");
    case "ERR_CHECKPOINT":
      return t("errors.ERR_CHECKPOINT");
    case "ERR_CHECKPOINT_CONFLICT":
      return t("errors.ERR_CHECKPOINT_CONFLICT");
    case "ERR_FORK_FOLDER":
      return t("errors.ERR_FORK_FOLDER");
    case "ERR_FORK_UNRECORDED":
      return t("errors.ERR_FORK_UNRECORDED");
    case "ERR_NO_WORKTREE":
      return t("errors.ERR_NO_WORKTREE");
    case "ERR_WORKTREE_MISSING":
      return t("errors.ERR_WORKTREE_MISSING");
    case "ERR_MERGE_CONFLICTS":
      return t("errors.ERR_MERGE_CONFLICTS");
    case "ERR_CHECKOUT_CHANGED":
      return t("errors.ERR_CHECKOUT_CHANGED");
    case "ERR_MERGE_REFUSED":
      return t("errors.ERR_MERGE_REFUSED");
    case "ERR_WORKTREE":
      return t("errors.ERR_WORKTREE");
    case "ERR_INTERNAL":
      return t("errors.ERR_INTERNAL");
    case "ERR_PROMPT_UNKNOWN":
      return t("errors.ERR_PROMPT_UNKNOWN");
    case "ERR_PROMPT_ARGUMENTS":
      return t("errors.ERR_PROMPT_ARGUMENTS");
    case "ERR_PROMPT_FAILED":
      return t("errors.ERR_PROMPT_FAILED");
    case "ERR_RESOURCE_UNAVAILABLE":
      return t("errors.ERR_RESOURCE_UNAVAILABLE");
    case "ERR_RESOURCE_FAILED":
      return t("errors.ERR_RESOURCE_FAILED");
    case "ERR_HOOK_BLOCKED":
      return t("errors.ERR_HOOK_BLOCKED");
  }
}

/** "<lead> — <the engine's message>", or the lead alone when the engine said nothing. */
export function describeError(error: ApiError): string {
  const lead = errorLead(error.code);
  const detail = error.message.trim();
  return detail === "" ? lead : t("errors.withDetail", { lead, detail });
}
