// The MCP server's question card: a form from the server's schema with its defaults filled
// in, required fields marked and checked, lists as selects and checkboxes; Accept sends the
// content, Decline and Cancel say so; nothing is sent (or opened) without a click; the
// engine's refusal is shown; and the card goes when the engine closes the question.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { ElicitationCard } from "../components/ElicitationCard";
import { Messages } from "../components/Messages";
import type { Elicitation } from "../generated/Elicitation";
import { applyEvent, initialState } from "../lib/chatState";
import { formContent, formFields, initialValues } from "../lib/elicitationForm";
import { user, view } from "./fixtures";

const schema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", description: "As on your badge", default: "Ada" },
    age: { type: "integer", title: "Age", minimum: 0, maximum: 150, default: 36 },
    ratio: { type: "number", title: "Ratio" },
    subscribe: { type: "boolean", title: "Subscribe", default: true },
    color: { type: "string", title: "Colour", enum: ["red", "green"], default: "green" },
    size: { type: "string", title: "Size", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
    tags: { type: "array", title: "Tags", minItems: 1, maxItems: 2, items: { type: "string", enum: ["a", "b", "c"] }, default: ["b"] },
    plans: { type: "array", title: "Plans", items: { anyOf: [{ const: "free", title: "Free" }, { const: "pro", title: "Pro" }] } },
    email: { type: "string", title: "Email", format: "email" },
    site: { type: "string", title: "Site", format: "uri" },
    day: { type: "string", title: "Day", format: "date", default: "2026-12-01" },
  },
  required: ["name", "color"],
};

function form(message = "Tell the tracker who you are"): Elicitation {
  return { id: "el_1", question: { mode: "form", server: "tracker", message, schema } };
}

function url(): Elicitation {
  return { id: "el_2", question: { mode: "url", server: "payments", message: "Confirm the payment", url: "https://pay.example.com/confirm?session=42" } };
}

function renderCard(elicitation: Elicitation, refuse: string | null = null) {
  const onAnswer = vi.fn(async () => refuse);
  const onOpenUrl = vi.fn(async () => null);
  render(<ElicitationCard elicitation={elicitation} onAnswer={onAnswer} onOpenUrl={onOpenUrl} />);
  return { onAnswer, onOpenUrl, card: screen.getByTestId("elicitation-card") };
}

const input = (name: string) => screen.getByTestId(`field-${name}`) as HTMLInputElement;

describe("the elicitation card, form mode", () => {
  it("shows the server, its message and every field with its default filled in", () => {
    const { card, onAnswer } = renderCard(form());
    expect(within(card).getByRole("heading").textContent).toBe("tracker asks");
    expect(screen.getByTestId("elicitation-message").textContent).toBe("Tell the tracker who you are");
    expect(input("name").value).toBe("Ada");
    expect(card.textContent).toContain("As on your badge");
    expect(input("age").value).toBe("36");
    expect([input("age").type, input("age").min, input("age").max, input("age").step]).toEqual(["number", "0", "150", "1"]);
    expect(input("ratio").step).toBe("any");
    expect(input("subscribe").checked).toBe(true);
    const color = screen.getByTestId("field-color") as unknown as HTMLSelectElement;
    expect(color.selectedOptions[0]!.textContent).toBe("green");
    expect([...color.options].map((option) => option.textContent)).toEqual(["Choose…", "red", "green"]);
    const size = screen.getByTestId("field-size") as unknown as HTMLSelectElement;
    expect([...size.options].map((option) => option.textContent)).toEqual(["Choose…", "Small", "Large"]);
    expect((screen.getByTestId("field-tags-1") as HTMLInputElement).checked).toBe(true);
    expect((screen.getByTestId("field-tags-0") as HTMLInputElement).checked).toBe(false);
    expect(within(screen.getByTestId("field-plans")).getByText("Pro")).toBeTruthy();
    expect([input("email").type, input("site").type, input("day").type, input("day").value]).toEqual(["email", "url", "date", "2026-12-01"]);
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it("marks the required fields", () => {
    const { card } = renderCard(form());
    const marked = [...card.querySelectorAll(".field-label")].filter((label) => label.querySelector(".required")).map((label) => label.textContent);
    expect(marked).toEqual(["Your name *", "Colour *"]);
    expect(input("name").getAttribute("aria-required")).toBe("true");
    expect(card.textContent).toContain("Fields marked * are required.");
  });

  it("Accept sends what is filled in: defaults, changes, lists; optional empty fields are left out", async () => {
    const { onAnswer } = renderCard(form());
    fireEvent.input(input("name"), { target: { value: "Grace" } });
    fireEvent.change(screen.getByTestId("field-size"), { target: { value: "1" } });
    fireEvent.click(screen.getByTestId("field-plans-0"));
    fireEvent.click(screen.getByTestId("field-subscribe"));
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    await waitFor(() => expect(onAnswer).toHaveBeenCalledTimes(1));
    expect(onAnswer).toHaveBeenCalledWith("el_1", {
      action: "accept",
      content: { name: "Grace", age: 36, subscribe: false, color: "green", size: "l", tags: ["b"], plans: ["free"], day: "2026-12-01" },
    });
    expect((screen.getByTestId("elicitation-accept") as HTMLButtonElement).disabled).toBe(true);
  });

  it("does not send a form with a required field empty or a number out of range", () => {
    const { onAnswer } = renderCard(form());
    fireEvent.input(input("name"), { target: { value: "  " } });
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    expect(screen.getByTestId("elicitation-error").textContent).toBe("“Your name” is required.");
    expect(input("name").getAttribute("aria-invalid")).toBe("true");
    fireEvent.input(input("name"), { target: { value: "Grace" } });
    fireEvent.input(input("age"), { target: { value: "200" } });
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    expect(screen.getByTestId("elicitation-error").textContent).toBe("“Age” must be at most 150.");
    fireEvent.input(input("age"), { target: { value: "2.5" } });
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    expect(screen.getByTestId("elicitation-error").textContent).toBe("“Age” must be a whole number.");
    fireEvent.input(input("age"), { target: { value: "3" } });
    ["0", "2"].forEach((at) => fireEvent.click(screen.getByTestId(`field-tags-${at}`)));
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    expect(screen.getByTestId("elicitation-error").textContent).toBe("“Tags”: choose at most 2.");
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it("shows the engine's words when it refuses the answer, and the question stays answerable", async () => {
    const { onAnswer } = renderCard(form(), "This cannot be done as asked. — `color` cannot be \"blue\"");
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    await waitFor(() => expect(screen.getByTestId("elicitation-error").textContent).toBe("This cannot be done as asked. — `color` cannot be \"blue\""));
    expect(onAnswer).toHaveBeenCalledTimes(1);
    expect((screen.getByTestId("elicitation-accept") as HTMLButtonElement).disabled).toBe(false);
  });

  it("Decline and Cancel send only the action", async () => {
    const first = renderCard(form());
    fireEvent.click(screen.getByTestId("elicitation-decline"));
    await waitFor(() => expect(first.onAnswer).toHaveBeenCalledWith("el_1", { action: "decline" }));
    first.card.remove();
    const second = renderCard(url());
    fireEvent.click(screen.getByTestId("elicitation-cancel"));
    await waitFor(() => expect(second.onAnswer).toHaveBeenCalledWith("el_2", { action: "cancel" }));
  });

  it("shows the server's text as text, never as markup", () => {
    const { card } = renderCard(form('<img src=x onerror="alert(1)"> **bold**'));
    expect(card.querySelector("img")).toBeNull();
    expect(screen.getByTestId("elicitation-message").textContent).toBe('<img src=x onerror="alert(1)"> **bold**');
  });
});

describe("the elicitation card, URL mode", () => {
  it("shows the host and opens the page only when the user clicks Open, then Done accepts", async () => {
    const { card, onOpenUrl, onAnswer } = renderCard(url());
    expect(card.textContent).toContain("Confirm the payment");
    expect(screen.getByTestId("elicitation-host").textContent).toBe("pay.example.com");
    expect(screen.getByTestId("elicitation-url").textContent).toBe("https://pay.example.com/confirm?session=42");
    expect(onOpenUrl).not.toHaveBeenCalled();
    expect(onAnswer).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("elicitation-open"));
    await waitFor(() => expect(onOpenUrl).toHaveBeenCalledWith("el_2"));
    await waitFor(() => expect(card.textContent).toContain("Opened in your browser."));
    expect(onAnswer).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("elicitation-accept"));
    await waitFor(() => expect(onAnswer).toHaveBeenCalledWith("el_2", { action: "accept", content: {} }));
  });

  it("shows an internationalised host as the browser reads it (punycode)", () => {
    renderCard({ id: "el_3", question: { mode: "url", server: "s", message: "m", url: "https://раypal.example/login" } });
    expect(screen.getByTestId("elicitation-host").textContent).toBe("xn--ypal-43d9g.example");
  });
});

describe("elicitations in the chat", () => {
  it("a card per open question, gone when the engine closes it", () => {
    const actions = { onAnswer: vi.fn(), onAnswerChange: vi.fn(), onApprove: vi.fn(), onRevise: vi.fn(), onCancel: vi.fn(), onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };
    let state = initialState(view([user("u1", "go")], "executing"), [], [form()]);
    state = applyEvent(state, { type: "elicitation", elicitation: url() });
    const { rerender } = render(<Messages state={state} actions={actions} />);
    expect(screen.getAllByTestId("elicitation-card").map((card) => card.dataset.id)).toEqual(["el_1", "el_2"]);
    state = applyEvent(state, { type: "elicitation_closed", id: "el_1", action: "accept" });
    rerender(<Messages state={state} actions={actions} />);
    expect(screen.getAllByTestId("elicitation-card").map((card) => card.dataset.id)).toEqual(["el_2"]);
    state = applyEvent(state, { type: "elicitation_closed", id: "el_2", action: "cancel" });
    rerender(<Messages state={state} actions={actions} />);
    expect(screen.queryByTestId("elicitation-card")).toBeNull();
  });

  it("the form's content by the schema alone: an empty schema sends an empty object", () => {
    const fields = formFields({ type: "object", properties: {} });
    expect(formContent(fields, initialValues(fields))).toEqual({ ok: true, content: {} });
    const legacy = formFields({ properties: { pick: { type: "string", enum: ["x", "y"], enumNames: ["Ex", "Why"] } }, required: ["pick"] });
    expect(legacy[0]!.choices).toEqual([{ value: "x", label: "Ex" }, { value: "y", label: "Why" }]);
    expect(formContent(legacy, initialValues(legacy))).toEqual({ ok: false, field: "pick", error: "“pick” is required." });
    const several = formFields({ properties: { tags: { type: "array", minItems: 2, items: { enum: ["a", "b", "c"] } } }, required: ["tags"] });
    expect(formContent(several, { tags: [1] })).toEqual({ ok: false, field: "tags", error: "“tags”: choose at least 2." });
    expect(formContent(several, { tags: [0, 2] })).toEqual({ ok: true, content: { tags: ["a", "c"] } });
    const optional = formFields({ properties: { tags: { type: "array", minItems: 1, items: { enum: ["a"] } } } });
    expect(formContent(optional, { tags: [] }), "an optional list left empty is left out").toEqual({ ok: true, content: {} });
  });
});
