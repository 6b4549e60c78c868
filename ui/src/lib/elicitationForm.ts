// An MCP server's form question (elicitation) as the card handles it: the fields of the
// server's flat JSON Schema (text, email, URL, date, number, integer, yes/no, one of a list,
// several of a list), the values the card starts with (the schema's defaults) and the
// content an Accept sends. Pure functions; the engine checks the content again.
import { t } from "./i18n";

export type FieldKind = "text" | "email" | "uri" | "date" | "number" | "integer" | "boolean" | "select" | "multi";

/** One choice of a list: the value sent and the label shown. */
export interface Choice {
  value: unknown;
  label: string;
}

export interface FormField {
  name: string;
  /** The schema's `title`, else the property's name. */
  label: string;
  description: string | null;
  required: boolean;
  kind: FieldKind;
  /** For `select` and `multi`. */
  choices: Choice[];
  minimum: number | null;
  maximum: number | null;
  minLength: number | null;
  maxLength: number | null;
  /** How many choices a `multi` field takes at least and at most. */
  minItems: number | null;
  maxItems: number | null;
  default: unknown;
}

/** What an input holds: the text of a text or number box, a checkbox's state, or the indexes
 *  of the chosen choices (a select's is one index, or none). */
export type FieldValue = string | boolean | number[];
export type FormValues = Record<string, FieldValue>;

export type Content = { ok: true; content: Record<string, unknown> } | { ok: false; field: string; error: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function numberOr(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function textOr(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** `enum` (with the older `enumNames` as labels) or `oneOf`/`anyOf` of `{const, title}`. */
function choicesOf(schema: Record<string, unknown>): Choice[] | null {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, index) => ({ value, label: textOr(names[index]) ?? String(value) }));
  }
  const options = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : null;
  if (!options) return null;
  return options.filter(isObject).filter((option) => "const" in option).map((option) => ({ value: option.const, label: textOr(option.title) ?? String(option.const) }));
}

function kindOf(schema: Record<string, unknown>, choices: Choice[] | null): FieldKind {
  const type = typeof schema.type === "string" ? schema.type : "string";
  if (type === "array") return "multi";
  if (choices) return "select";
  if (type === "number" || type === "integer" || type === "boolean") return type;
  if (schema.format === "email" || schema.format === "uri" || schema.format === "date") return schema.format;
  return "text";
}

/** The form's fields in the schema's order. */
export function formFields(schema: Record<string, unknown>): FormField[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : []);
  return Object.entries(properties).map(([name, raw]) => {
    const property = isObject(raw) ? raw : {};
    const items = isObject(property.items) ? property.items : {};
    const choices = property.type === "array" ? choicesOf(items) : choicesOf(property);
    return {
      name,
      label: textOr(property.title) ?? name,
      description: textOr(property.description),
      required: required.has(name),
      kind: kindOf(property, choices),
      choices: choices ?? [],
      minimum: numberOr(property.minimum),
      maximum: numberOr(property.maximum),
      minLength: numberOr(property.minLength),
      maxLength: numberOr(property.maxLength),
      minItems: numberOr(property.minItems),
      maxItems: numberOr(property.maxItems),
      default: property.default,
    };
  });
}

function indexOfChoice(field: FormField, value: unknown): number {
  return field.choices.findIndex((choice) => choice.value === value);
}

/** The inputs as the card first shows them: each field's default, else empty. */
export function initialValues(fields: FormField[]): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const fallback = field.default;
    switch (field.kind) {
      case "boolean":
        values[field.name] = fallback === true;
        break;
      case "select": {
        const index = indexOfChoice(field, fallback);
        values[field.name] = index === -1 ? [] : [index];
        break;
      }
      case "multi":
        values[field.name] = (Array.isArray(fallback) ? fallback : []).map((value) => indexOfChoice(field, value)).filter((index) => index !== -1);
        break;
      default:
        values[field.name] = typeof fallback === "string" || typeof fallback === "number" ? String(fallback) : "";
    }
  }
  return values;
}

/** The value a field sends, `undefined` for an optional field left empty, or what is wrong. */
function fieldContent(field: FormField, value: FieldValue | undefined): { value?: unknown; error?: string } {
  const fieldName = field.label;
  if (field.kind === "boolean") return { value: value === true };
  if (Array.isArray(value)) {
    const picked = value.map((index) => field.choices[index]?.value);
    if (field.kind === "select") {
      if (picked.length === 0) return field.required ? { error: t("elicitation.required", { field: fieldName }) } : {};
      return { value: picked[0] };
    }
    if (picked.length === 0 && !field.required) return {};
    if (field.minItems !== null && picked.length < field.minItems) return { error: t("elicitation.tooFew", { field: fieldName, min: field.minItems }) };
    if (field.maxItems !== null && picked.length > field.maxItems) return { error: t("elicitation.tooMany", { field: fieldName, max: field.maxItems }) };
    return { value: picked };
  }
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "") return field.required ? { error: t("elicitation.required", { field: fieldName }) } : {};
  if (field.kind === "text") return { value };
  if (field.kind !== "number" && field.kind !== "integer") return { value: text };
  const number = Number(text);
  if (!Number.isFinite(number)) return { error: t("elicitation.notNumber", { field: fieldName }) };
  if (field.kind === "integer" && !Number.isInteger(number)) return { error: t("elicitation.notInteger", { field: fieldName }) };
  if (field.minimum !== null && number < field.minimum) return { error: t("elicitation.tooSmall", { field: fieldName, min: field.minimum }) };
  if (field.maximum !== null && number > field.maximum) return { error: t("elicitation.tooLarge", { field: fieldName, max: field.maximum }) };
  return { value: number };
}

/** What Accept sends, or the first field that is not filled in right. */
export function formContent(fields: FormField[], values: FormValues): Content {
  const content: Record<string, unknown> = {};
  for (const field of fields) {
    const result = fieldContent(field, values[field.name]);
    if (result.error !== undefined) return { ok: false, field: field.name, error: result.error };
    if (result.value !== undefined) content[field.name] = result.value;
  }
  return { ok: true, content };
}

/** The host a URL question would open (as the browser reads it), or null when it is no URL. */
export function urlHost(url: string): string | null {
  try {
    const host = new URL(url).host;
    return host === "" ? null : host;
  } catch {
    return null;
  }
}
