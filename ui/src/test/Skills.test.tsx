// Settings → Skills (DESIGN §17): the skills listed with whose they are, the folders left out
// said in the user's language, nothing yet said as such, and a failed read with Try again.
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { Skills, type SkillsSource } from "../components/Skills";
import type { SkillSet } from "../generated/SkillSet";
import { applyLanguage } from "../lib/i18n";

const set: SkillSet = {
  skills: [
    { name: "house-style", description: "How the user writes", source: "user", folder: "/home/u/.local/share/preflight/skills/house-style" },
    { name: "pdf-forms", description: "Fill PDF forms", source: "workspace", folder: ".agents/skills/pdf-forms" },
  ],
  problems: [
    { folder: ".agents/skills/house-style", kind: "duplicate", problem: "a skill named \"house-style\" is already listed" },
    { folder: ".agents/skills/big", kind: "too_large", problem: "SKILL.md is larger than 32 KiB" },
  ],
};

const source = (load: SkillsSource["load"]): SkillsSource => ({ load, folder: "/home/u/.local/share/preflight/skills" });

describe("Settings → Skills", () => {
  it("lists each skill with whose it is and says the folders left out", async () => {
    render(<Skills source={source(async () => set)} />);
    const skills = await screen.findAllByTestId("skill");
    expect(skills.map((skill) => skill.textContent)).toEqual([
      "house-style yoursHow the user writes/home/u/.local/share/preflight/skills/house-style",
      "pdf-forms this workspaceFill PDF forms.agents/skills/pdf-forms",
    ]);
    expect(screen.getByTestId("skill-problems").textContent).toContain("2 folders are left out:");
    const problems = screen.getAllByTestId("skill-problem").map((item) => item.textContent);
    expect(problems).toEqual([
      ".agents/skills/house-style: a skill of that name is already listed (yours come first)",
      ".agents/skills/big: its SKILL.md is larger than 32 KiB",
    ]);
  });

  it("says in Russian what was left out", async () => {
    applyLanguage("ru");
    try {
      render(<Skills source={source(async () => set)} />);
      expect((await screen.findByTestId("skill-problems")).textContent).toContain("Не загружены 2 папки:");
      expect(screen.getAllByTestId("skill")[1]!.textContent).toContain("эта рабочая папка");
    } finally {
      applyLanguage("en");
    }
  });

  it("says there are none, and where to put one", async () => {
    render(<Skills source={source(async () => ({ skills: [], problems: [] }))} />);
    expect((await screen.findByTestId("skills-none")).textContent).toContain("SKILL.md");
    expect(screen.getByTestId("skills").textContent).toContain("/home/u/.local/share/preflight/skills");
  });

  it("says a failed read in words and reads again on Try again", async () => {
    const load = vi.fn<SkillsSource["load"]>().mockRejectedValueOnce({ code: "ERR_NOT_FOUND", message: "no such chat" }).mockResolvedValueOnce(set);
    render(<Skills source={source(load)} />);
    const error = await screen.findByTestId("skills-error");
    expect(error.textContent).not.toContain("ERR_");
    fireEvent.click(screen.getByText("Try again"));
    await waitFor(() => expect(screen.getAllByTestId("skill")).toHaveLength(2));
    expect(load).toHaveBeenCalledTimes(2);
  });
});
