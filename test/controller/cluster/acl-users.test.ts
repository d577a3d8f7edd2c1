import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readAclLines, readUsersAcl } from '../../../src/api/contract/users-acl.js';
import { aclDifferences, aclSignatures } from '../../../src/controller/cluster/acl-users.js';
import { aclPasswordHash } from '../../../src/controller/valkey/digests.js';

const parseAclFile = (t: string) => aclSignatures(readUsersAcl(t), aclPasswordHash);
const parseAclUsers = (l: string[]) => aclSignatures(readAclLines(l), aclPasswordHash);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const FILE = `user default on nopass resetchannels -@all +ping
user app on #${sha('old')} #${sha('new')} ~app:* +@read
user valkey-krm-revision off #${'ab'.repeat(32)} resetchannels -@all
`;

describe('users.acl against ACL LIST', () => {
  it('a node that loaded the file has the same users, states and password hashes', () => {
    // ACL LIST prints its own normal form: other rule order, plain passwords as hashes.
    const list = [
      'user default on nopass sanitize-payload resetchannels -@all +ping',
      `user app on #${sha('new')} #${sha('old')} ~app:* resetchannels +@read`,
      `user valkey-krm-revision off #${'ab'.repeat(32)} resetchannels -@all`,
    ];
    expect(aclDifferences(parseAclFile(FILE), parseAclUsers(list))).toEqual([]);
  });

  it('an older file shows as the users that differ: a rotated password, a new user, the revision marker', () => {
    const old = [
      'user default on nopass resetchannels -@all +ping',
      `user app on >old ~app:* +@read`,
      `user valkey-krm-revision off #${'cd'.repeat(32)} resetchannels -@all`,
    ];
    const file = `${FILE}user reporting on >r ~report:* +@read\n`;
    expect(aclDifferences(parseAclFile(file), parseAclUsers(old))).toEqual(['app', 'reporting', 'valkey-krm-revision']);
  });

  it('on/off and removed passwords count', () => {
    expect(aclDifferences(parseAclFile('user a on #aa\n'), parseAclFile('user a off #aa\n'))).toEqual(['a']);
    expect(aclDifferences(parseAclFile('user a on #aa\n'), parseAclFile('user a on #aa #bb !bb\n'))).toEqual([]);
  });
});
