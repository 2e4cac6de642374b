// The editor's `view` of an image: the image itself, as a block Claude sees in the tool result (the pptx skill's
// thumbnail check, the pdf skill's page images). Recognised by its first bytes, not its name; decoded by sharp
// in-process with a pixel bound, so a crafted file costs at most that; scaled down when over the API's bounds.
import type { ImageBlockParam } from '@anthropic-ai/sdk/resources/messages';
import sharp from 'sharp';
import type { ImageType } from './inputFiles.ts';

/** The Messages API's bound per image (5 MB), on the base64 it carries. */
export const IMAGE_MAX_BASE64 = 5 * 1024 * 1024;
/** The API scales a longer edge down to this anyway (only slower); 8000 px is its hard limit. */
export const IMAGE_MAX_EDGE = 1568;
/** Largest image file the editor reads to show. */
export const IMAGE_MAX_FILE_BYTES = 32 * 1024 * 1024;
/** Pixels decoded at most (10,000 × 10,000): a bigger image is refused before it is decoded. */
const IMAGE_MAX_PIXELS = 100_000_000;

export interface SeenImage {
  block: ImageBlockParam;
  width: number;
  height: number;
  /** The size it had when it was scaled down to be sent. */
  scaledFrom?: { width: number; height: number };
}

const fits = (width: number, height: number, bytes: number) =>
  width <= IMAGE_MAX_EDGE && height <= IMAGE_MAX_EDGE && Math.ceil(bytes / 3) * 4 <= IMAGE_MAX_BASE64;

function block(type: ImageType, bytes: Buffer): ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: type, data: bytes.toString('base64') } };
}

/** The image as Claude may see it, or why it cannot be shown (a sentence). */
export async function imageForClaude(bytes: Buffer, type: ImageType): Promise<SeenImage | string> {
  const open = () => sharp(bytes, { limitInputPixels: IMAGE_MAX_PIXELS });
  let width: number;
  let height: number;
  try {
    const meta = await open().metadata();
    width = meta.width;
    height = meta.pageHeight ?? meta.height;
  } catch (error) {
    return `it is not a readable ${type.slice(6).toUpperCase()} image (${(error as Error).message})`;
  }
  if (width * height > IMAGE_MAX_PIXELS) return `it is ${width}×${height} pixels, more than the editor decodes (100 megapixels); make a smaller copy with bash first`;
  if (fits(width, height, bytes.byteLength)) return { block: block(type, bytes), width, height };
  try {
    const resized = open().resize({ width: IMAGE_MAX_EDGE, height: IMAGE_MAX_EDGE, fit: 'inside', withoutEnlargement: true });
    // A photo stays a JPEG; a drawing (PNG, GIF's first frame, WebP) stays lossless unless that is still too big.
    let out = type === 'image/jpeg' ? await resized.jpeg({ quality: 85 }).toBuffer({ resolveWithObject: true }) : await resized.png().toBuffer({ resolveWithObject: true });
    let outType: ImageType = type === 'image/jpeg' ? 'image/jpeg' : 'image/png';
    if (!fits(out.info.width, out.info.height, out.data.byteLength)) {
      out = await open().resize({ width: IMAGE_MAX_EDGE, height: IMAGE_MAX_EDGE, fit: 'inside' }).flatten({ background: '#ffffff' }).jpeg({ quality: 75 }).toBuffer({ resolveWithObject: true });
      outType = 'image/jpeg';
    }
    return { block: block(outType, out.data), width: out.info.width, height: out.info.height, scaledFrom: { width, height } };
  } catch (error) {
    return `it could not be scaled down to send (${(error as Error).message})`;
  }
}
