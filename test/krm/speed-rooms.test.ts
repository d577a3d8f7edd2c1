// "Tricks for speed stay in their room" (STYLE.md): the byte-level and start-up tricks of the KRM
// function live in src/krm/yaml (reader, emitter, byte sink, the lazily loaded yaml package) and
// src/krm/cli (blocking stdio, latin1 decoding), so the rest of the code does not have to know them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from '../support/files.js';

const ROOMS = ['src/krm/yaml/', 'src/krm/cli/'];
const TRICKS = /\b(readSync|writeSync|isAscii|allocUnsafe|__KRM_BUNDLE__)\b|'latin1'/;

describe('speed tricks stay in krm/yaml and krm/cli', () => {
  it('no other source file uses blocking fd I/O, latin1 decoding, unpooled buffers or the bundle flag', () => {
    const outside = typeScriptFiles('src').filter(
      (file) => !ROOMS.some((room) => file.startsWith(room)) && TRICKS.test(readFileSync(file, 'utf8')),
    );
    expect(outside).toEqual([]);
  });

  it('only krm/yaml/yaml-package.ts loads the yaml package (type imports aside)', () => {
    const loaders = typeScriptFiles('src').filter((file) => /^import (?!type )[^;]*from 'yaml'/m.test(readFileSync(file, 'utf8')));
    expect(loaders).toEqual([]);
    const lazy = typeScriptFiles('src').filter((file) => /createRequire\([^)]*\)\('yaml'\)/.test(readFileSync(file, 'utf8')));
    expect(lazy).toEqual(['src/krm/yaml/yaml-package.ts']);
  });
});
