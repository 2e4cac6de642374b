// The limits Discord enforces on a message body, answered the way Discord answers them (400, code 50035/50006).

export interface ApiError {
  status: number;
  body: { code: number; message: string; errors?: unknown };
}

function formError(field: string, code: string, message: string): ApiError {
  return { status: 400, body: { code: 50035, message: 'Invalid Form Body', errors: { [field]: { _errors: [{ code, message }] } } } };
}

function buttonError(button: Record<string, unknown>, path: string): ApiError | undefined {
  if (button.type !== 2) return formError(`${path}.type`, 'COMPONENT_TYPE_INVALID', 'Only buttons are expected here.');
  const style = button.style;
  if (typeof style !== 'number' || style < 1 || style > 5) return formError(`${path}.style`, 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3, 4, 5}.');
  if (typeof button.label === 'string' && button.label.length > 80) return formError(`${path}.label`, 'BASE_TYPE_MAX_LENGTH', 'Must be 80 or fewer in length.');
  if (style === 5) return undefined;
  const customId = button.custom_id;
  if (typeof customId !== 'string' || customId.length === 0) return formError(`${path}.custom_id`, 'BASE_TYPE_REQUIRED', 'This field is required');
  if (customId.length > 100) return formError(`${path}.custom_id`, 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
  return undefined;
}

/** A string select (type 3): alone in its row, as Discord requires, with 1 to 25 options and sane value bounds. */
function selectError(select: Record<string, unknown>, path: string): ApiError | undefined {
  const { custom_id: customId, options, min_values: min = 1, max_values: max = 1 } = select;
  if (typeof customId !== 'string' || customId.length === 0 || customId.length > 100) return formError(`${path}.custom_id`, 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
  if (!Array.isArray(options) || options.length === 0 || options.length > 25) return formError(`${path}.options`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 25 in length.');
  if (typeof min !== 'number' || typeof max !== 'number' || min < 0 || max > options.length || min > max) return formError(`${path}.max_values`, 'BASE_TYPE_MAX', 'Must be at most the number of options.');
  for (const [index, option] of options.entries()) {
    const { label, value } = (option ?? {}) as Record<string, unknown>;
    if (typeof label !== 'string' || label.length === 0 || label.length > 100 || typeof value !== 'string' || value.length === 0 || value.length > 100) {
      return formError(`${path}.options.${index}`, 'BASE_TYPE_BAD_LENGTH', 'An option needs a label and a value of 1 to 100 characters.');
    }
  }
  return undefined;
}

function componentsError(components: unknown): ApiError | undefined {
  if (components === undefined) return undefined;
  if (!Array.isArray(components) || components.length > 5) return formError('components', 'BASE_TYPE_MAX_LENGTH', 'Must be 5 or fewer in length.');
  for (const [rowIndex, row] of components.entries()) {
    const { type, components: children } = (row ?? {}) as Record<string, unknown>;
    if (type !== 1 || !Array.isArray(children) || children.length === 0 || children.length > 5) {
      return formError(`components.${rowIndex}`, 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'An action row holds 1 to 5 buttons.');
    }
    const first = (children[0] ?? {}) as Record<string, unknown>;
    if (first.type === 3) {
      if (children.length !== 1) return formError(`components.${rowIndex}`, 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'A select menu is alone in its action row.');
      const error = selectError(first, `components.${rowIndex}.components.0`);
      if (error) return error;
      continue;
    }
    for (const [index, child] of children.entries()) {
      const error = buttonError((child ?? {}) as Record<string, unknown>, `components.${rowIndex}.components.${index}`);
      if (error) return error;
    }
  }
  return undefined;
}

/** Components V2 (`flags` IS_COMPONENTS_V2): layout components instead of content. */
export const COMPONENTS_V2 = 1 << 15;
const V2_TOP = new Set([1, 9, 10, 12, 13, 14, 17]);
const V2_IN_CONTAINER = new Set([1, 9, 10, 12, 13, 14]);
const V2_MAX_COMPONENTS = 40;
const V2_MAX_TEXT = 4000;

function v2Error(body: Record<string, unknown>): ApiError | undefined {
  if (typeof body.content === 'string' && body.content !== '') return formError('content', 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2', 'The content field cannot be used when using MessageFlags.IS_COMPONENTS_V2');
  const components = body.components;
  if (!Array.isArray(components) || components.length === 0) return { status: 400, body: { code: 50006, message: 'Cannot send an empty message' } };
  let count = 0;
  let text = 0;
  const visit = (component: unknown, path: string, allowed: ReadonlySet<number>): ApiError | undefined => {
    const { type, components: children, content, accessory } = (component ?? {}) as Record<string, unknown>;
    count += 1;
    if (typeof type !== 'number' || !allowed.has(type)) return formError(`${path}.type`, 'COMPONENT_TYPE_INVALID', 'This component type is not allowed here.');
    if (type === 10) {
      if (typeof content !== 'string' || content === '') return formError(`${path}.content`, 'BASE_TYPE_REQUIRED', 'This field is required');
      text += content.length;
    }
    if (type === 1) return componentsError([component]) ? formError(path, 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'An action row holds 1 to 5 buttons.') : undefined;
    if (type === 9 && accessory !== undefined) {
      const error = buttonError(accessory as Record<string, unknown>, `${path}.accessory`);
      if (error && (accessory as { type?: unknown }).type !== 11) return error;
      count += 1;
    }
    if (type === 17 || type === 9) {
      if (!Array.isArray(children) || children.length === 0) return formError(`${path}.components`, 'BASE_TYPE_REQUIRED', 'This field is required');
      for (const [index, child] of children.entries()) {
        const error = visit(child, `${path}.components.${index}`, type === 9 ? new Set([10]) : V2_IN_CONTAINER);
        if (error) return error;
      }
    }
    return undefined;
  };
  for (const [index, component] of components.entries()) {
    const error = visit(component, `components.${index}`, V2_TOP);
    if (error) return error;
  }
  if (count > V2_MAX_COMPONENTS) return formError('components', 'BASE_TYPE_MAX_LENGTH', `Must be ${V2_MAX_COMPONENTS} or fewer in total.`);
  if (text > V2_MAX_TEXT) return formError('components', 'BASE_TYPE_MAX_LENGTH', `Text displays hold ${V2_MAX_TEXT} characters or fewer in total.`);
  return undefined;
}

/** Checks a message create or edit body. `creating`: an empty message is refused (an edit may change only components). */
export function messageBodyError(body: Record<string, unknown>, creating: boolean): ApiError | undefined {
  if (typeof body.flags === 'number' && (body.flags & COMPONENTS_V2) !== 0) return v2Error(body);
  const content = body.content;
  if (content !== undefined && content !== null && typeof content !== 'string') return formError('content', 'BASE_TYPE_STRING', 'Must be a string.');
  if (typeof content === 'string' && content.length > 2000) return formError('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
  const componentError = componentsError(body.components);
  if (componentError) return componentError;
  const hasComponents = Array.isArray(body.components) && body.components.length > 0;
  const hasEmbeds = Array.isArray(body.embeds) && body.embeds.length > 0;
  if (creating && !(typeof content === 'string' && content.trim() !== '') && !hasComponents && !hasEmbeds) {
    return { status: 400, body: { code: 50006, message: 'Cannot send an empty message' } };
  }
  return undefined;
}
