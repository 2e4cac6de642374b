// How much a fetch may bring in: past any bound it stops and the install is refused, before anything is kept.

export interface InstallBounds {
  /** Bytes read from the network (or the shared file's size). */
  maxDownloadBytes: number;
  /** Bytes of all staged files together, unpacked. */
  maxBytes: number;
  /** Files staged. */
  maxFiles: number;
  /** One file. */
  maxFileBytes: number;
  /** The whole fetch. */
  timeoutMs: number;
  /** A zip entry may unpack to at most this many times its packed size (a zip bomb unpacks to thousands). */
  maxRatio: number;
}

export const DEFAULT_BOUNDS: InstallBounds = {
  maxDownloadBytes: 100 * 1024 * 1024,
  maxBytes: 50 * 1024 * 1024,
  maxFiles: 2_000,
  maxFileBytes: 10 * 1024 * 1024,
  timeoutMs: 60_000,
  maxRatio: 100,
};

/** A bound was crossed: the message names which and by how much, for the person who asked. */
export class OverBound extends Error {
  override name = 'OverBound';
}

export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MiB`;
}

/**
 * What a git pack may hold, checked before isomorphic-git inflates it (packCheck.ts): no object larger than every
 * staged file together may be, the whole pack unpacked within twice the download bound (trees, and files outside
 * the path asked for, come with it), and no more objects than a few per file.
 */
export function packBounds(bounds: InstallBounds): { maxObjectBytes: number; maxTotalBytes: number; maxObjects: number } {
  return { maxObjectBytes: bounds.maxBytes, maxTotalBytes: 2 * Math.max(bounds.maxDownloadBytes, bounds.maxBytes), maxObjects: bounds.maxFiles * 10 };
}
