// An MCP server's question during execution (elicitation): a form built from the server's
// schema, its defaults filled in, with Accept / Decline / Cancel; or a page to open in the
// browser, opened only when the user clicks "Open in browser", then Done / Decline / Cancel.
// Nothing is sent without a click. Everything the server wrote (message, labels, URL) is
// shown as plain text. The card goes when the engine closes the question.
import { useMemo, useState } from "preact/hooks";

import type { Elicitation } from "../generated/Elicitation";
import type { ServerAnswer } from "../generated/ServerAnswer";
import { formContent, formFields, initialValues, urlHost, type FieldValue, type FormField, type FormValues } from "../lib/elicitationForm";
import { t } from "../lib/i18n";

export interface ElicitationCardProps {
  elicitation: Elicitation;
  /** Sends the answer; resolves with the error to show when the engine refused it. */
  onAnswer: (id: string, answer: ServerAnswer) => Promise<string | null>;
  /** Opens a URL question's page in the browser; resolves with the error, if any. */
  onOpenUrl: (id: string) => Promise<string | null>;
}

export function ElicitationCard({ elicitation, onAnswer, onOpenUrl }: ElicitationCardProps) {
  const { question } = elicitation;
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const answer = async (reply: ServerAnswer) => {
    setSending(true);
    setError(null);
    const refused = await onAnswer(elicitation.id, reply);
    // On success the card waits (disabled) for the engine to close the question.
    if (refused !== null) {
      setError(refused);
      setSending(false);
    }
  };
  return (
    <section class="card active elicitation-card" data-testid="elicitation-card" data-id={elicitation.id} data-mode={question.mode} aria-label={t("elicitation.label")}>
      <h3 class="card-title">{t("elicitation.asks", { server: question.server })}</h3>
      <p class="elicitation-message" data-testid="elicitation-message">
        {question.message}
      </p>
      {question.mode === "form" ? (
        <FormQuestion schema={question.schema} sending={sending} onError={setError} onAnswer={(reply) => void answer(reply)} />
      ) : (
        <UrlQuestion url={question.url} sending={sending} onOpen={() => onOpenUrl(elicitation.id)} onAnswer={(reply) => void answer(reply)} />
      )}
      {error && (
        <p class="error small" role="alert" data-testid="elicitation-error">
          {error}
        </p>
      )}
    </section>
  );
}

function FormQuestion(props: { schema: Record<string, unknown>; sending: boolean; onError: (error: string | null) => void; onAnswer: (answer: ServerAnswer) => void }) {
  const { schema, sending, onError, onAnswer } = props;
  const fields = useMemo(() => formFields(schema), [schema]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [invalid, setInvalid] = useState<string | null>(null);
  const accept = () => {
    const result = formContent(fields, values);
    if (!result.ok) {
      setInvalid(result.field);
      onError(result.error);
      return;
    }
    setInvalid(null);
    onAnswer({ action: "accept", content: result.content });
  };
  return (
    <>
      <div class="elicitation-form" data-testid="elicitation-form">
        {fields.map((field) => (
          <Field key={field.name} field={field} value={values[field.name]} invalid={invalid === field.name} disabled={sending} onChange={(value) => setValues({ ...values, [field.name]: value })} />
        ))}
        {fields.some((field) => field.required) && <p class="small muted">{t("elicitation.requiredHint")}</p>}
      </div>
      <Actions sending={sending} acceptLabel={t("elicitation.accept")} acceptFirst onAccept={accept} onAnswer={onAnswer} />
    </>
  );
}

function UrlQuestion(props: { url: string; sending: boolean; onOpen: () => Promise<string | null>; onAnswer: (answer: ServerAnswer) => void }) {
  const { url, sending, onOpen, onAnswer } = props;
  const [opened, setOpened] = useState(false);
  const [openError, setOpenError] = useState<string | null>(null);
  const host = urlHost(url);
  return (
    <>
      <p class="elicitation-site">
        {t("elicitation.site")}{" "}
        <strong data-testid="elicitation-host">{host ?? url}</strong>
      </p>
      <p class="small muted">
        <code class="elicitation-url" data-testid="elicitation-url">
          {url}
        </code>
      </p>
      <div class="card-actions">
        <button
          type="button"
          class={opened ? "secondary" : "primary"}
          data-testid="elicitation-open"
          disabled={sending || host === null}
          onClick={async () => {
            const error = await onOpen();
            setOpenError(error);
            setOpened(error === null);
          }}
        >
          {t("elicitation.open")}
        </button>
        {opened && <span class="small muted">{t("elicitation.opened")}</span>}
      </div>
      {openError && (
        <p class="error small" role="alert">
          {openError}
        </p>
      )}
      <Actions sending={sending} acceptLabel={t("elicitation.done")} acceptFirst={opened} onAccept={() => onAnswer({ action: "accept", content: {} })} onAnswer={onAnswer} />
    </>
  );
}

/** `acceptFirst`: Accept is the button to press next (a URL question's, once its page is open). */
function Actions(props: { sending: boolean; acceptLabel: string; acceptFirst: boolean; onAccept: () => void; onAnswer: (answer: ServerAnswer) => void }) {
  const { sending, acceptLabel, acceptFirst, onAccept, onAnswer } = props;
  return (
    <div class="card-actions">
      <button type="button" class={acceptFirst ? "primary" : "secondary"} data-testid="elicitation-accept" disabled={sending} onClick={onAccept}>
        {acceptLabel}
      </button>
      <button type="button" class="secondary" data-testid="elicitation-decline" disabled={sending} onClick={() => onAnswer({ action: "decline" })}>
        {t("elicitation.decline")}
      </button>
      <button type="button" class="secondary" data-testid="elicitation-cancel" disabled={sending} onClick={() => onAnswer({ action: "cancel" })}>
        {t("elicitation.cancel")}
      </button>
      {sending ? <span class="small muted">{t("elicitation.sending")}</span> : <span class="small muted">{t("elicitation.hint")}</span>}
    </div>
  );
}

const INPUT_TYPE: Record<string, string> = { text: "text", email: "email", uri: "url", date: "date", number: "number", integer: "number" };

function Field(props: { field: FormField; value: FieldValue | undefined; invalid: boolean; disabled: boolean; onChange: (value: FieldValue) => void }) {
  const { field, value, invalid, disabled, onChange } = props;
  const title = (
    <span class="field-label">
      {field.label}
      {field.required && (
        <span class="required" title={t("elicitation.requiredMark")}>
          {" *"}
        </span>
      )}
    </span>
  );
  const description = field.description && <span class="small muted field-description">{field.description}</span>;
  const common = { "data-testid": `field-${field.name}`, disabled, "aria-invalid": invalid || undefined, "aria-required": field.required || undefined };
  if (field.kind === "boolean") {
    return (
      <label class="check elicitation-field">
        <input type="checkbox" {...common} checked={value === true} onChange={(event) => onChange(event.currentTarget.checked)} />
        {title}
        {description}
      </label>
    );
  }
  const picked = Array.isArray(value) ? value : [];
  if (field.kind === "multi") {
    return (
      <fieldset class="elicitation-field" {...common}>
        <legend>{title}</legend>
        {description}
        {field.choices.map((choice, index) => (
          <label class="check" key={index}>
            <input
              type="checkbox"
              data-testid={`field-${field.name}-${index}`}
              disabled={disabled}
              checked={picked.includes(index)}
              onChange={(event) => onChange(event.currentTarget.checked ? [...picked, index].sort((a, b) => a - b) : picked.filter((at) => at !== index))}
            />
            {choice.label}
          </label>
        ))}
      </fieldset>
    );
  }
  if (field.kind === "select") {
    return (
      <label class="elicitation-field">
        {title}
        {description}
        <select {...common} value={picked.length > 0 ? String(picked[0]) : ""} onChange={(event) => onChange(event.currentTarget.value === "" ? [] : [Number(event.currentTarget.value)])}>
          <option value="">{t("elicitation.choose")}</option>
          {field.choices.map((choice, index) => (
            <option key={index} value={String(index)}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
    );
  }
  const numeric = field.kind === "number" || field.kind === "integer";
  return (
    <label class="elicitation-field">
      {title}
      {description}
      <input
        type={INPUT_TYPE[field.kind] ?? "text"}
        {...common}
        value={typeof value === "string" ? value : ""}
        step={numeric ? (field.kind === "integer" ? "1" : "any") : undefined}
        min={numeric && field.minimum !== null ? field.minimum : undefined}
        max={numeric && field.maximum !== null ? field.maximum : undefined}
        minLength={field.minLength ?? undefined}
        maxLength={field.maxLength ?? undefined}
        onInput={(event) => onChange(event.currentTarget.value)}
      />
    </label>
  );
}
