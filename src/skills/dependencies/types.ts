// What a skill's code uses from the host, as found by the static scan (scan.ts) and checked by host.ts.

/** A program run by name or path, a Python module imported, or a Node package required. */
export type DependencyKind = 'program' | 'python' | 'node';

/** Where a use was seen: a path relative to the skill folder and a 1-based line. */
export interface UseSite {
  file: string;
  line: number;
}

export interface Dependency {
  kind: DependencyKind;
  /** The program (name, or absolute path from a shebang), the top-level Python module, or the Node package. */
  name: string;
  /** Every place it was seen, in scan order. */
  sites: UseSite[];
  /** True when every use is guarded (a Python import inside `try: … except ImportError`): the code copes without it. */
  optional: boolean;
  /**
   * True when only the skill's documents mention it (a code block of SKILL.md or a linked document): an example or
   * an alternative the model may choose, not something the skill's own code needs.
   */
  mentionedOnly: boolean;
  /** Python: submodules imported (`v3` of `imageio.v3`), which an older version of the package may lack. */
  submodules?: string[];
  /** Set by the host check: the submodules the host's (older) package lacks. */
  lacks?: string[];
}

/** How a person gets a missing dependency on a Debian-like host. */
export interface InstallAdvice {
  /** The Debian package that provides it, when there is one. */
  debian?: string;
  /** The name to give pip (Python) or npm (Node) when Debian has no package, or as the other way. */
  pip?: string;
  npm?: string;
  /** True when the package name is a guess from the module's name (no entry in packages.ts). */
  guessed?: boolean;
  /** A short remark, e.g. that Debian's version is too old for some skills. */
  note?: string;
  /**
   * When the host has the module but an older one than the code needs (it lacks a name or submodule): what the
   * Debian package provides, and what to install instead (Debian's package is then no answer).
   */
  newer?: { note: string; pip: string; submodules: string[] };
}

export interface MissingDependency extends Dependency {
  install: InstallAdvice;
}
