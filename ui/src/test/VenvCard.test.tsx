// The card of a workspace venv the sandbox does not use: an earlier Preflight's offers "Use this
// environment" (which adopts it and then says so) beside the advice to move or delete it; a
// planted one only says why it is not used and that advice; a refused adoption is said on the
// card. In English and in Russian.
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";

import { VenvCard } from "../components/VenvCard";
import { SandboxSummary } from "../components/WorkspaceBar";
import type { ApiError } from "../generated/ApiError";
import type { SandboxView } from "../generated/SandboxView";
import { applyLanguage } from "../lib/i18n";

const path = "/home/u/project/.sandbox/venv";

function view(refusal: ApiError | null): SandboxView {
  return {
    available: true,
    confined: true,
    text: "Venv: …",
    info: { venv: { path, exists: true, ours: refusal === null, adoptable: refusal?.code === "ERR_VENV_ADOPTABLE" } },
    venv_refusal: refusal,
  };
}

const adoptable = view({ code: "ERR_VENV_ADOPTABLE", message: `${path} was not recorded by Preflight's sandbox, but it looks like a venv an earlier Preflight made.` });
const foreign = view({ code: "ERR_VENV_FOREIGN", message: `${path} was not made by Preflight's sandbox (bin/python3 is not a link to the interpreter).` });

afterEach(() => applyLanguage("en"));

describe("the venv card", () => {
  it("offers an earlier Preflight's venv for adoption, adopts it on the user's press, then says it is used", async () => {
    const adopt = vi.fn(async () => view(null));
    const adopted = vi.fn();
    render(<VenvCard view={adoptable} adopt={adopt} onAdopted={adopted} />);
    const card = screen.getByTestId("venv-card");
    expect(card.dataset.state).toBe("adoptable");
    expect(card.textContent).toContain(path);
    expect(card.textContent).toContain("does not use it until you confirm");
    expect(screen.getByTestId("venv-advice").textContent).toContain("move it away or delete it");
    expect(adopt).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("venv-adopt"));
    await waitFor(() => expect(screen.getByTestId("venv-card").dataset.state).toBe("adopted"));
    expect(adopt).toHaveBeenCalledTimes(1);
    expect(adopted).toHaveBeenCalledWith(view(null));
    expect(screen.getByTestId("venv-card").textContent).toContain("Run the step again");
  });

  it("shows the engine's refusal of an adoption on the card and keeps the offer", async () => {
    const adopt = vi.fn(async (): Promise<SandboxView> => {
      throw { code: "ERR_VENV_FOREIGN", message: "bin/ls would run in place of the system's ls" };
    });
    render(<VenvCard view={adoptable} adopt={adopt} />);
    fireEvent.click(screen.getByTestId("venv-adopt"));
    const error = await screen.findByTestId("venv-error");
    expect(error.textContent).toContain("not made by Preflight");
    expect(error.textContent).toContain("bin/ls would run in place");
    expect(screen.getByTestId("venv-card").dataset.state).toBe("adoptable");
  });

  it("gives a planted venv no way to be used, only why and what to do", () => {
    render(<VenvCard view={foreign} adopt={vi.fn()} />);
    const card = screen.getByTestId("venv-card");
    expect(card.dataset.state).toBe("foreign");
    expect(screen.queryByTestId("venv-adopt")).toBeNull();
    expect(card.textContent).toContain("would run with your rights");
    expect(screen.getByTestId("venv-advice").textContent).toContain("Move it away or delete it yourself");
    expect(screen.getByTestId("venv-detail").textContent).toContain("bin/python3 is not a link");
  });

  it("is absent when the venv is the sandbox's own, and shown in the sandbox popover when it is not", () => {
    const { container } = render(<VenvCard view={view(null)} adopt={vi.fn()} />);
    expect(container.textContent).toBe("");
    render(<SandboxSummary view={adoptable} adopt={vi.fn()} />);
    expect(screen.getByTestId("venv-adopt").textContent).toBe("Use this environment");
  });

  it("speaks Russian", () => {
    applyLanguage("ru");
    render(<VenvCard view={adoptable} adopt={vi.fn()} />);
    expect(screen.getByTestId("venv-adopt").textContent).toBe("Использовать это окружение");
    expect(screen.getByTestId("venv-card").textContent).toContain("прежней версии Preflight");
  });
});
