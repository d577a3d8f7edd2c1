// Where the benchmarks' figures live: each bench prints its lines as it goes and, when the process
// exits, writes them to docs/figures/<bench>.txt with the date, Node and the machine's CPUs, so the
// docs link one file per bench instead of copying numbers by hand (contributing/benchmarks.md).
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIGURES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'figures');

export interface FigureLog {
  /** Prints one line (parts joined by spaces, as console.log does) and keeps it for the figures file. */
  line(...parts: unknown[]): void;
}

/** A bench's figure log; the file is written once, at exit, only when the bench printed something. */
export function figureLog(bench: string): FigureLog {
  const lines: string[] = [];
  process.once('exit', (code) => {
    if (lines.length === 0 || code !== 0) return;
    const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
    const header = [
      `# ${bench}: written by bench/${bench}.bench.ts on ${new Date().toISOString().slice(0, 10)}`,
      `# node ${process.version}, ${availableParallelism()} CPU(s): ${cpu}`,
      '',
    ];
    mkdirSync(FIGURES_DIR, { recursive: true });
    writeFileSync(join(FIGURES_DIR, `${bench}.txt`), `${[...header, ...lines].join('\n')}\n`);
  });
  return {
    line(...parts) {
      const text = parts.map(String).join(' ');
      console.log(text);
      lines.push(text);
    },
  };
}
