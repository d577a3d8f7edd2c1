import { describe, expect, it } from 'vitest';
import { directivesByName, readValkeyConf, splitValkeyArgs, valkeyConfLine } from '../../../src/api/contract/valkey-conf.js';
import { desiredLiveSettings } from '../../../src/controller/cluster/live-settings.js';

// The server's side of these cases is test/valkey/valkey-conf-reader.test.ts (real valkey-server).
describe('splitValkeyArgs', () => {
  it.each([
    ['a b\tc', ['a', 'b', 'c']],
    ['"\\x45x"', ['Ex']],
    ['"\\x4"', ['x4']],
    ['"a"b "c" d', ['ab', 'c', 'd']],
    ["'a\\'b' '\\n'", ["a'b", '\\n']],
    ['a"b c"', ['ab c']],
    ['"\\xc3\\xa9"', ['é']],
    ['a\0b c', ['a']],
    ['""', ['']],
  ])('%j', (line, words) => {
    expect(splitValkeyArgs(line)).toEqual({ ok: true, words });
  });

  it.each([
    ['"open', '"'],
    ["it's", "'"],
    ['"ends in a backslash\\', '"'],
  ])('%j is refused', (line, quote) => {
    expect(splitValkeyArgs(line)).toEqual({ ok: false, failure: { reason: 'unclosed', quote } });
  });
});

describe('readValkeyConf', () => {
  it('reads names in lowercase, keeps every line of a repeated directive, skips comments, reports refused lines', () => {
    const conf = readValkeyConf('# c\n  SAVE 3600 1\r\nsave 300 100\n\n  # d\nmasteruser "x\n');
    expect(directivesByName(conf).get('save')).toEqual([
      ['3600', '1'],
      ['300', '100'],
    ]);
    expect(conf.directives.map((d) => [d.name, d.written, d.line])).toEqual([
      ['save', '3600 1', 2],
      ['save', '300 100', 3],
    ]);
    expect(conf.problems).toEqual(['line 6: a value has a " that is never closed']);
  });

  it('reads what the writer wrote', () => {
    const text = ['maxmemory 1gb', valkeyConfLine('notify-keyspace-events', ''), valkeyConfLine('save', '"3600 1" 300')].join('\n');
    expect([...directivesByName(readValkeyConf(text))]).toEqual([
      ['maxmemory', [['1gb']]],
      ['notify-keyspace-events', [['']]],
      ['save', [['3600 1', '300']]],
    ]);
  });

  it('the controller sets what Valkey read: "\\x45x" is Ex, not x45x', () => {
    const desired = desiredLiveSettings(directivesByName(readValkeyConf('notify-keyspace-events "\\x45x"\n')));
    expect(desired.map((d) => [d.name, d.value])).toEqual([['notify-keyspace-events', 'Ex']]);
  });
});
