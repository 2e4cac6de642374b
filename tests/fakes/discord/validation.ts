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

function componentsError(components: unknown): ApiError | undefined {
  if (components === undefined) return undefined;
  if (!Array.isArray(components) || components.length > 5) return formError('components', 'BASE_TYPE_MAX_LENGTH', 'Must be 5 or fewer in length.');
  for (const [rowIndex, row] of components.entries()) {
    const { type, components: children } = (row ?? {}) as Record<string, unknown>;
    if (type !== 1 || !Array.isArray(children) || children.length === 0 || children.length > 5) {
      return formError(`components.${rowIndex}`, 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'An action row holds 1 to 5 buttons.');
    }
    for (const [index, child] of children.entries()) {
      const error = buttonError((child ?? {}) as Record<string, unknown>, `components.${rowIndex}.components.${index}`);
      if (error) return error;
    }
  }
  return undefined;
}

/** Checks a message create or edit body. `creating`: an empty message is refused (an edit may change only components). */
export function messageBodyError(body: Record<string, unknown>, creating: boolean): ApiError | undefined {
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
