// A ConfigMap or Secret volume written the way the kubelet's AtomicWriter does it, so a process
// sees either all the old files or all the new ones:
//
//   <dir>/..<timestamp>/<files>       one directory per projection
//   <dir>/..data -> ..<timestamp>     swapped with a rename (atomic)
//   <dir>/<name> -> ..data/<name>     the visible names, stable across updates
import { chmod, mkdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { KeyToPath, KeyedBytes } from './pod.js';

/** The files of a volume: relative path -> content. */
export type VolumeFiles = Map<string, Buffer>;

/** Which keys land under which paths: all keys under their own names, or only the listed items. */
export function volumeFiles(keys: KeyedBytes, items: readonly KeyToPath[] | undefined): VolumeFiles {
  if (items === undefined) return new Map(keys);
  const files: VolumeFiles = new Map();
  for (const item of items) {
    const value = keys.get(item.key);
    if (value !== undefined) files.set(item.path, value);
  }
  return files;
}

const sameFiles = (a: VolumeFiles, b: VolumeFiles): boolean =>
  a.size === b.size && [...a].every(([path, content]) => b.get(path)?.equals(content) === true);

let serial = 0;

export class ProjectedVolume {
  private current: VolumeFiles | undefined;

  constructor(
    readonly dir: string,
    private readonly mode: number,
  ) {}

  /** Writes `files` unless they are what the volume already shows; true when it changed. */
  async project(files: VolumeFiles): Promise<boolean> {
    if (this.current !== undefined && sameFiles(this.current, files)) return false;
    await mkdir(this.dir, { recursive: true });
    const stamp = `..${new Date().toISOString().replace(/[-:.TZ]/g, '_')}${String(++serial)}`;
    const stampDir = join(this.dir, stamp);
    for (const [path, content] of files) {
      const file = join(stampDir, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content);
      await chmod(file, this.mode);
    }
    await mkdir(stampDir, { recursive: true });
    const previous = await readlink(join(this.dir, '..data')).catch(() => undefined);
    await symlink(stamp, join(this.dir, '..data_tmp'));
    await rename(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
    const visible = new Set([...files.keys()].map((p) => p.split('/')[0] as string));
    const before = new Set([...(this.current?.keys() ?? [])].map((p) => p.split('/')[0] as string));
    for (const name of visible) if (!before.has(name)) await symlink(join('..data', name), join(this.dir, name));
    for (const name of before) if (!visible.has(name)) await rm(join(this.dir, name), { force: true });
    if (previous !== undefined) await rm(join(this.dir, previous), { recursive: true, force: true });
    this.current = files;
    return true;
  }
}
