// A run's results cannot carry the images it made (a script's output is text); the model sees one when it asks,
// with the editor's `view` (src/agent/editorImage.ts). This line tells it so, when a run made any.

const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;

/** The hint for the image files among `paths` (as shown under /workspace), or undefined when there are none. */
export function seeImagesHint(paths: readonly string[]): string | undefined {
  const images = paths.filter((path) => IMAGE_NAME.test(path));
  if (images.length === 0) return undefined;
  const named = images.length > 3 ? `${images.slice(0, 3).join(', ')} and ${images.length - 3} more` : images.join(', ');
  return `To look at an image it made (${named}), view it with str_replace_based_edit_tool: you will see the image itself.`;
}
