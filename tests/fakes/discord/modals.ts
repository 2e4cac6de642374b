// Modals, as Discord checks and delivers them: the bot's answer of type 9 (title, custom_id, at most 5 Labels each
// holding a text input or a string select), and a person's submission (INTERACTION_CREATE type 5, each Label
// carrying its input's custom_id and value, or a select's values), refused the way the client refuses it when a
// required field is left empty.
import type { ApiError } from './validation.ts';

export const MODAL_SUBMIT = 5;

type Json = Record<string, unknown>;
const asJson = (value: unknown): Json => (value !== null && typeof value === 'object' ? (value as Json) : {});

function formError(field: string, message: string): ApiError {
  return { status: 400, body: { code: 50035, message: 'Invalid Form Body', errors: { [field]: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message }] } } } };
}

const badLength = (value: unknown, min: number, max: number): boolean => typeof value !== 'string' || value.length < min || value.length > max;

function inputError(input: Json, path: string): ApiError | undefined {
  if (badLength(input.custom_id, 1, 100)) return formError(`${path}.custom_id`, 'Must be between 1 and 100 in length.');
  if (input.type === 4) {
    if (input.label !== undefined) return formError(`${path}.label`, 'A text input in a Label takes no label of its own.');
    if (input.style !== 1 && input.style !== 2) return formError(`${path}.style`, 'Value must be one of {1, 2}.');
    if (input.placeholder !== undefined && badLength(input.placeholder, 0, 100)) return formError(`${path}.placeholder`, 'Must be 100 or fewer in length.');
    if (input.value !== undefined && badLength(input.value, 0, 4000)) return formError(`${path}.value`, 'Must be 4000 or fewer in length.');
    if (input.max_length !== undefined && (typeof input.max_length !== 'number' || input.max_length < 1 || input.max_length > 4000)) return formError(`${path}.max_length`, 'Must be between 1 and 4000.');
    return undefined;
  }
  if (input.type === 3) {
    const options = input.options;
    if (!Array.isArray(options) || options.length < 1 || options.length > 25) return formError(`${path}.options`, 'Must be between 1 and 25 in length.');
    if (options.some((option) => badLength(asJson(option).label, 1, 100) || badLength(asJson(option).value, 1, 100))) return formError(`${path}.options`, 'An option needs a label and a value of 1 to 100 characters.');
    return undefined;
  }
  return formError(`${path}.type`, 'This component type is not allowed in a Label here.');
}

/** The checks Discord makes of a modal (interaction callback type 9). */
export function modalError(data: Json): ApiError | undefined {
  if (badLength(data.custom_id, 1, 100)) return formError('data.custom_id', 'Must be between 1 and 100 in length.');
  if (badLength(data.title, 1, 45)) return formError('data.title', 'Must be between 1 and 45 in length.');
  const components = data.components;
  if (!Array.isArray(components) || components.length < 1 || components.length > 5) return formError('data.components', 'Must be between 1 and 5 in length.');
  for (const [index, raw] of components.entries()) {
    const label = asJson(raw);
    if (label.type !== 18) return formError(`data.components.${index}.type`, 'Only Label components are expected here.');
    if (badLength(label.label, 1, 45)) return formError(`data.components.${index}.label`, 'Must be between 1 and 45 in length.');
    if (label.description !== undefined && badLength(label.description, 0, 100)) return formError(`data.components.${index}.description`, 'Must be 100 or fewer in length.');
    const error = inputError(asJson(label.component), `data.components.${index}.component`);
    if (error) return error;
  }
  return undefined;
}

/** What a person sees of an open modal: its title and each Label with its input. */
export interface ShownModal {
  customId: string;
  title: string;
  fields: Array<{ label: string; description?: string; input: Json }>;
}

export function shownModal(data: Json): ShownModal {
  return {
    customId: String(data.custom_id),
    title: String(data.title),
    fields: (data.components as Json[]).map((label) => ({ label: String(label.label), ...(typeof label.description === 'string' ? { description: label.description } : {}), input: asJson(label.component) })),
  };
}

/**
 * The submission's `data`: `answers` by Label text (a text input's text, or a select's chosen values); a field not
 * named keeps what the modal pre-filled. Throws where Discord's client would not let the person submit.
 */
export function submissionData(modal: ShownModal, answers: Record<string, string | string[]>): Json {
  const known = new Set(modal.fields.map((field) => field.label));
  const stray = Object.keys(answers).find((label) => !known.has(label));
  if (stray !== undefined) throw new Error(`the modal has no field labelled ${stray}`);
  const components = modal.fields.map((field, index) => {
    const { input } = field;
    const given = answers[field.label];
    if (input.type === 3) {
      const options = (input.options as Json[]).map((option) => String(option.value));
      const values = given === undefined ? (input.options as Json[]).filter((option) => option.default === true).map((option) => String(option.value)) : [given].flat();
      if (values.some((value) => !options.includes(value))) throw new Error(`${field.label}: ${values.join(',')} is not an option`);
      if (input.required !== false && values.length === 0) throw new Error(`${field.label} is required: Discord's client would not submit`);
      return { type: 18, id: index * 2 + 1, component: { type: 3, id: index * 2 + 2, custom_id: input.custom_id, values } };
    }
    const value = typeof given === 'string' ? given : typeof input.value === 'string' ? input.value : '';
    if (input.required !== false && value === '') throw new Error(`${field.label} is required: Discord's client would not submit`);
    if (typeof input.max_length === 'number' && value.length > input.max_length) throw new Error(`${field.label} is longer than its max_length`);
    return { type: 18, id: index * 2 + 1, component: { type: 4, id: index * 2 + 2, custom_id: input.custom_id, value } };
  });
  return { custom_id: modal.customId, components };
}
