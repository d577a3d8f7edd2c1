import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from '../support/files.js';
import { renderConfigSpec } from '../../src/api/index.js';

describe('the schemas use zod/mini', () => {
  // One import of the classic API would bring its chainable methods back into the bundle and with
  // them about 10 ms of every cold start (src/api/lazy.ts).
  it('no source file imports the classic zod API', () => {
    const classic = typeScriptFiles('src').filter((file) => /from '(zod|zod\/v4)'/.test(readFileSync(file, 'utf8')));
    expect(classic).toEqual([]);
  });

  it("with the classic API's English messages", () => {
    const r = renderConfigSpec().safeParse({ systemUsers: { replication: { passwordHash: 7 } } });
    expect(r.error?.issues.map((i) => i.message)).toEqual([
      'must be 64 lowercase hex characters, the SHA-256 of the password: printf %s "$PASSWORD" | sha256sum | cut -d" " -f1',
      'Invalid input: expected object, received undefined',
    ]);
    expect(renderConfigSpec().safeParse({ systemUsers: {}, outputDir: 5 }).error?.issues[0]?.message).toBe(
      'Invalid input: expected string, received number',
    );
  });
});
