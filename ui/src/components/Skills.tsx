// Settings → Skills (DESIGN §17): the skills the model is told of — the user's own (in the data
// folder's skills/) and, with a chat open, its workspace's (.agents/skills, .preflight/skills)
// — with what each is for, and every folder left out with why, in the user's language.
import { useEffect, useState } from "preact/hooks";

import type { SkillProblem } from "../generated/SkillProblem";
import type { SkillSet } from "../generated/SkillSet";
import { asApiError } from "../lib/api";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";

/** What the section reads (the desktop command; a test passes its own). */
export interface SkillsSource {
  load: () => Promise<SkillSet>;
  /** Where the user's own skills are kept. */
  folder: string;
}

type Loaded = { kind: "loading" } | { kind: "ready"; set: SkillSet } | { kind: "failed"; message: string };

/** A problem in the user's words; the folder is said beside it. */
function problemText(problem: SkillProblem): string {
  switch (problem.kind) {
    case "unreadable":
      return t("skills.problem.unreadable");
    case "too_large":
      return t("skills.problem.tooLarge");
    case "no_front_matter":
      return t("skills.problem.noFrontMatter");
    case "bad_name":
      return t("skills.problem.badName");
    case "bad_description":
      return t("skills.problem.badDescription");
    case "duplicate":
      return t("skills.problem.duplicate");
    case "too_many":
      return t("skills.problem.tooMany");
  }
}

export function Skills({ source }: { source: SkillsSource }) {
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  const load = () => {
    setLoaded({ kind: "loading" });
    source.load().then(
      (set) => setLoaded({ kind: "ready", set }),
      (error) => setLoaded({ kind: "failed", message: describeError(asApiError(error)) }),
    );
  };
  useEffect(load, [source]);
  return (
    <section class="settings-section skills" aria-labelledby="skills-title" data-testid="skills">
      <h2 id="skills-title">{t("skills.title")}</h2>
      <p class="muted small">{t("skills.hint", { folder: source.folder })}</p>
      {loaded.kind === "loading" && <p class="muted">{t("skills.loading")}</p>}
      {loaded.kind === "failed" && (
        <p class="error" role="alert" data-testid="skills-error">
          {loaded.message}{" "}
          <button type="button" class="secondary" onClick={load}>
            {t("skills.retry")}
          </button>
        </p>
      )}
      {loaded.kind === "ready" && <SkillList set={loaded.set} />}
    </section>
  );
}

function SkillList({ set }: { set: SkillSet }) {
  return (
    <>
      {set.skills.length === 0 && <p data-testid="skills-none">{t("skills.none")}</p>}
      {set.skills.length > 0 && (
        <ul class="skill-list">
          {set.skills.map((skill) => (
            <li key={`${skill.source}:${skill.name}`} data-testid="skill">
              <strong>{skill.name}</strong>{" "}
              <span class="badge small">{skill.source === "user" ? t("skills.yours") : t("skills.workspace")}</span>
              <p class="small">{skill.description}</p>
              <p class="muted small skill-folder">{skill.folder}</p>
            </li>
          ))}
        </ul>
      )}
      {set.problems.length > 0 && (
        <div data-testid="skill-problems">
          <p class="small">
            <strong>{t("skills.leftOut", { count: set.problems.length })}</strong>
          </p>
          <ul class="skill-problems small">
            {set.problems.map((problem) => (
              <li key={problem.folder} data-testid="skill-problem">
                <span class="skill-folder">{problem.folder}</span>: {problemText(problem)}
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}
