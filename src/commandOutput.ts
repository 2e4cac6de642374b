/** Where a CLI command writes: stdout for its result, stderr for one-line errors. Tests capture both. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: CommandOutput = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};
