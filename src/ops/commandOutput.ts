/** Where a CLI command writes: stdout for its result, stderr for one-line errors. Tests capture both. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

/**
 * The process's own stdout and stderr. A reader that goes away early (`skillbot skills list | head`) is not an
 * error worth a stack trace: the rest of the output has nowhere to go, so the command just ends quietly.
 */
export function processOutput(): CommandOutput {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  return {
    out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  };
}
