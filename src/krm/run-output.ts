import type { ByteSink } from './yaml/byte-sink.js';

/** What a run prints and its exit code; the CLI writes it out (cli/stdio.ts). */
export interface RunOutput {
  /** stdout as text (decoded from the chunks on first use when it was built as bytes). */
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
  /** stdout as bytes, when it was built that way. */
  readonly stdoutChunks?: readonly Uint8Array[];
}

/** A run's output built in `sink`, which is not written to afterwards. */
export function bytesOutput(sink: ByteSink, stderr: string, exitCode: number): RunOutput {
  const chunks = sink.chunks();
  let text: string | undefined;
  return {
    get stdout() {
      text ??= sink.toString();
      return text;
    },
    stderr,
    exitCode,
    stdoutChunks: chunks,
  };
}
