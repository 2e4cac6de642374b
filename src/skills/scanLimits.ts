// The bounds that keep discovery and folder scans finite, whatever is on disk. The scan worker gets them
// as workerData; tests and docs read them here.

export const SCAN_LIMITS = {
  /** A skill folder may sit at most this many levels below its root (root/group/group/skill). */
  maxSkillDepth: 3,
  /** Folders looked at per discovery, so a huge unrelated tree cannot stall startup. */
  maxFolders: 200_000,
  /** Entries (of any kind, .git included) in one skill folder. More makes the skill invalid: its hash would be partial. */
  maxFiles: 2000,
  /** Folder depth inside a skill folder; deeper makes the skill invalid for the same reason. */
  maxDepth: 8,
  /**
   * Bytes of all files of one skill. Every byte is hashed for the approval (no size or mtime shortcut), so
   * a bigger skill is invalid rather than slow to index and to check before each run.
   */
  maxTotalBytes: 64 * 1024 * 1024,
  /** Text kept of each file under references/ or assets/ that SKILL.md mentions. */
  keepBytes: 32 * 1024,
  /** A markdown file of the skill is read whole up to this size, for the scripts it names (larger ones name none). */
  markdownMaxBytes: 256 * 1024,
  /** A bigger SKILL.md is refused. */
  skillMdMaxBytes: 1024 * 1024,
};

export type ScanLimits = typeof SCAN_LIMITS;
